/**
 * Contacts' records in an account move or deletion. A move re-keys the blocks made by and
 * against the account and the safety-number verifications made by and of it (an existing
 * record at the new key is kept). A deletion removes all of them, in both directions: nobody
 * blocks or verifies an account that no longer exists.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { BlockList } from './block-list.js';
import type { ContactVerifications } from './contact-verifications.js';

export class ContactsAccountData implements AccountDataOwner {
  readonly name = 'contacts';

  constructor(
    private readonly blocks: BlockList,
    private readonly verifications: ContactVerifications,
  ) {}

  async moveAccount(from: string, to: string): Promise<void> {
    await this.blocks.moveAll(from, to);
    await this.verifications.moveAll(from, to);
  }

  async deleteAccount(address: string): Promise<void> {
    await this.blocks.removeAll(address);
    await this.verifications.removeAll(address);
  }
}
