/**
 * Every query of the `media` collection. Changes of an item's references and state are
 * optimistic: read, decide, write only if the `revision` is still the one read (else read
 * again), so that a message attaching an item and the sweeper deleting it, on any number of
 * pods, never both win.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { notFound } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { MEDIA, NEVER } from './media-item.js';
import type { MediaItem, MediaReference } from './media-item.js';

const ATTEMPTS = 20;

/** For `changeReferences` on an item that may be gone already: a deleted item needs no change. */
export function ignoreMissing(error: unknown): void {
  if (!(error instanceof ConnectError && error.code === Code.NotFound)) throw error;
}

/** What a change of references decides from the item as read: the new list, or no change. */
export type ReferenceChange = (item: MediaItem) => MediaReference[] | undefined;

export class MediaItems {
  readonly collection: Collection<MediaItem>;

  constructor(store: DocumentStore) {
    this.collection = store.collection<MediaItem>(MEDIA);
  }

  find(mediaId: string): Promise<MediaItem | null> {
    return mediaId.length <= 64 ? this.collection.findOne({ _id: mediaId }) : Promise.resolve(null);
  }

  async insertUploading(item: MediaItem): Promise<void> {
    await this.collection.insertOne(item);
  }

  /** The upload is durable: the item becomes usable. False when the sweeper gave it up meanwhile. */
  async markStored(
    mediaId: string,
    stored: Pick<MediaItem, 'size' | 'sha256' | 'thumbnail' | 'contentType' | 'releaseCheckAt'>,
  ): Promise<boolean> {
    const result = await this.collection.updateOne(
      { _id: mediaId, state: 'uploading' },
      { $set: { ...stored, state: 'stored' }, $inc: { revision: 1 } },
    );
    return result.modifiedCount === 1;
  }

  /** An upload refused after its record was written (bad data): the record goes. */
  async forget(mediaId: string): Promise<void> {
    await this.collection.deleteOne({ _id: mediaId, state: 'uploading' });
  }

  /**
   * Applies `change` to a stored item's references; `releaseCheckAt` is lowered to `endsBy` when
   * given (a reference that ends then). Answers the item as changed; 404 when it is not stored.
   */
  async changeReferences(
    mediaId: string,
    change: ReferenceChange,
    endsBy?: Date,
  ): Promise<MediaItem> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const item = await this.find(mediaId);
      if (!item || item.state !== 'stored') throw notFound('No such media');
      const references = change(item);
      if (!references) return item;
      const update = {
        $set: { references },
        $inc: { revision: 1 },
        ...(endsBy ? { $min: { releaseCheckAt: endsBy } } : {}),
      };
      const result = await this.collection.updateOne(
        { _id: mediaId, revision: item.revision },
        update,
      );
      if (result.modifiedCount === 1) return { ...item, references, revision: item.revision + 1 };
    }
    throw new Error(`media ${mediaId}: references changed concurrently ${ATTEMPTS} times`);
  }

  /** Items whose release may be due, oldest check first. */
  dueForCheck(now: Date, limit: number): Promise<MediaItem[]> {
    return this.collection.find(
      { releaseCheckAt: { $lte: now } },
      { sort: { releaseCheckAt: 1 }, limit },
    );
  }

  /** Not yet due after all: the next check, unless the item changed since it was read. */
  async postponeCheck(item: MediaItem, releaseAt: Date): Promise<void> {
    await this.collection.updateOne(
      { _id: item._id, revision: item.revision },
      { $set: { releaseCheckAt: releaseAt } },
    );
  }

  /** Claims a due item for deletion; false when it changed since it was read (or another pod claimed it). */
  async claimForDeletion(item: MediaItem): Promise<boolean> {
    if (item.state === 'deleting') return true;
    const result = await this.collection.updateOne(
      { _id: item._id, revision: item.revision },
      { $set: { state: 'deleting' }, $inc: { revision: 1 } },
    );
    return result.modifiedCount === 1;
  }

  /** The blob is gone: the item stays as a tombstone (410) until `tombstoneUntil`. */
  async markDeleted(mediaId: string, tombstoneUntil: Date): Promise<void> {
    await this.collection.updateOne(
      { _id: mediaId },
      {
        $set: { state: 'deleted', references: [], releaseCheckAt: NEVER, tombstoneUntil },
        $inc: { revision: 1 },
      },
    );
  }

  /** Marks every item of `owner` for deletion (account deletion) and lists those so marked. */
  async deletingAllOf(owner: string, now: Date): Promise<MediaItem[]> {
    await this.collection.updateMany(
      { ownerAddress: owner, state: { $in: ['uploading', 'stored'] } },
      { $set: { state: 'deleting', releaseCheckAt: now }, $inc: { revision: 1 } },
    );
    return this.collection.find({ ownerAddress: owner, state: 'deleting' });
  }

  async reown(from: string, to: string): Promise<void> {
    await this.collection.updateMany({ ownerAddress: from }, { $set: { ownerAddress: to } });
  }
}
