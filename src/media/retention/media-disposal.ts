/**
 * Deleting a media item's bytes: the blobs go first (an avatar's thumbnail, then the item's),
 * then the item becomes a tombstone that answers 410 for a while. Both steps are idempotent, so a deletion cut off by a crash is
 * finished by whoever finds the item in `deleting` next (the sweeper, or the account
 * deletion run again).
 */
import type { BlobStore } from '../storage/blob-store.js';
import type { MediaItem } from '../media-item.js';
import type { MediaItems } from '../media-items.js';
import { thumbnailBlobId } from '../media-item.js';

/** How long a deleted item still answers 410 rather than 404. */
export const TOMBSTONE_MS = 30 * 24 * 60 * 60 * 1000;

export class MediaDisposal {
  constructor(
    private readonly items: MediaItems,
    private readonly blobs: BlobStore,
  ) {}

  async dispose(item: MediaItem): Promise<void> {
    // An avatar's thumbnail may exist before the item says so (an upload cut off after writing it).
    if (item.kind === 'avatar') await this.blobs.delete(thumbnailBlobId(item._id));
    await this.blobs.delete(item._id);
    await this.items.markDeleted(item._id, new Date(Date.now() + TOMBSTONE_MS));
  }
}
