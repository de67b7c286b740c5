/**
 * Keyset paging, newest first: the documents of `scope` ordered by a date field descending
 * (ties by `_id` ascending), starting strictly after the cursor's position, so a page never
 * repeats or skips items that were added meanwhile. Every list RPC pages this way.
 */
import { encodeCursor } from '../api/page-cursor.js';
import type { CursorPosition } from '../api/page-cursor.js';
import type { Collection, Document, StoreFilter } from './document-store.js';

export interface NewestFirstPage<T> {
  readonly items: T[];
  /** Empty on the last page. */
  readonly nextCursor: string;
}

export async function newestFirstPage<T extends Document, K extends keyof T & string>(
  collection: Collection<T>,
  scope: StoreFilter<T>,
  dateField: K,
  limit: number,
  after: CursorPosition | undefined,
): Promise<NewestFirstPage<T>> {
  const filter = after
    ? ({
        ...scope,
        $or: [
          { [dateField]: { $lt: new Date(after.sortValue) } },
          { [dateField]: new Date(after.sortValue), _id: { $gt: after.id } },
        ],
      } as StoreFilter<T>)
    : scope;
  const found = await collection.find(filter, {
    sort: { [dateField]: -1, _id: 1 },
    limit: limit + 1,
  });
  const items = found.slice(0, limit);
  const last = items[items.length - 1];
  const nextCursor =
    found.length > limit && last
      ? encodeCursor({ sortValue: (last[dateField] as Date).getTime(), id: last._id })
      : '';
  return { items, nextCursor };
}
