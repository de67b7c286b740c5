/**
 * Moving documents to a new key, for account moves (AccountDataOwner.moveAccount). MongoDB
 * cannot change an `_id`, so each document is written under its new id and then the old one is
 * removed; every step is idempotent, so a move that died half-way finishes when it runs again.
 * Where a document already exists under the new id (an earlier run wrote it, or the target
 * already had one) the existing document is kept.
 */
import type { Collection, Document, StoreFilter } from './document-store.js';
import { DuplicateKeyError } from './document-store.js';

/** Documents handled per read, so a large account does not load at once. */
const BATCH = 500;

/** Work a caller ties to each document's move: `before` the new document is written, `after` the old one is gone. */
export interface RekeyHooks<T> {
  before?(moved: T): Promise<void>;
  after?(original: T): Promise<void>;
}

export async function rekeyDocuments<T extends Document>(
  collection: Collection<T>,
  filter: StoreFilter<T>,
  rewrite: (document: T) => T,
  hooks: RekeyHooks<T> = {},
): Promise<void> {
  for (;;) {
    const batch = await collection.find(filter, { limit: BATCH });
    if (batch.length === 0) return;
    for (const document of batch) {
      const moved = rewrite(document);
      await hooks.before?.(moved);
      if (moved._id === document._id) {
        const { _id, ...fields } = moved;
        await collection.updateOne({ _id } as StoreFilter<T>, { $set: fields } as never);
      } else {
        try {
          await collection.insertOne(moved);
        } catch (error) {
          if (!(error instanceof DuplicateKeyError)) throw error;
        }
        await collection.deleteOne({ _id: document._id } as StoreFilter<T>);
      }
      await hooks.after?.(document);
    }
  }
}
