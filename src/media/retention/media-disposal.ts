/**
 * Deleting a media item's bytes: the blob goes first, then the item becomes a tombstone that
 * answers 410 for a while. Both steps are idempotent, so a deletion cut off by a crash is
 * finished by whoever finds the item in `deleting` next (the sweeper, or the account
 * deletion run again).
 */
import type { BlobStore } from '../storage/blob-store.js';
import type { MediaItems } from '../media-items.js';

/** How long a deleted item still answers 410 rather than 404. */
export const TOMBSTONE_MS = 30 * 24 * 60 * 60 * 1000;

export class MediaDisposal {
  constructor(
    private readonly items: MediaItems,
    private readonly blobs: BlobStore,
  ) {}

  async dispose(mediaId: string): Promise<void> {
    await this.blobs.delete(mediaId);
    await this.items.markDeleted(mediaId, new Date(Date.now() + TOMBSTONE_MS));
  }
}
