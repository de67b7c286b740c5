/**
 * The media area's records keyed by a wallet address, for recovery and account deletion.
 * Moving re-owns every upload of `from` (`to`'s own uploads stay as they are) and hands over
 * the avatar unless `to` already has one (then `to` keeps its own and `from`'s is released).
 * Deleting releases the avatar and deletes every upload of the address, blob first, leaving
 * tombstones (410). Both repeat safely after a crash: uploads are found by owner again, and a
 * deletion cut off half-way left its items in `deleting`, which it (or the sweeper) finishes.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Avatars } from './avatars.js';
import type { MediaItems } from './media-items.js';
import type { MediaMetrics } from './media-metrics.js';
import type { MediaDisposal } from './retention/media-disposal.js';

export class MediaAccountData implements AccountDataOwner {
  readonly name = 'media';

  constructor(
    private readonly items: MediaItems,
    private readonly avatars: Avatars,
    private readonly disposal: MediaDisposal,
    private readonly metrics: MediaMetrics,
  ) {}

  async moveAccount(from: string, to: string): Promise<void> {
    await this.avatars.move(from, to);
    await this.items.reown(from, to);
  }

  async deleteAccount(address: string): Promise<void> {
    await this.avatars.remove(address);
    for (const item of await this.items.deletingAllOf(address, new Date())) {
      await this.disposal.dispose(item);
      this.metrics.deletions.inc({ reason: 'account_deleted' });
    }
  }
}
