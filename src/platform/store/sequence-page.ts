/**
 * Keyset paging of a conversation's numbered records (messages, channel posts) by sequence
 * number, in either direction, each page oldest first. Cursors are opaque to clients and carry
 * the conversation, so a cursor of another conversation is refused rather than silently paging
 * elsewhere. ListMessages pages this way for direct chats, groups and channels alike.
 */
import { decodeCursor, encodeCursor, pageSize } from '../api/page-cursor.js';
import { invalidArgument } from '../errors/api-error.js';
import type { Collection, Document, StoreFilter } from './document-store.js';

export interface SequencePageRequest {
  readonly pageSize: number;
  readonly beforeCursor: string;
  readonly afterCursor: string;
}

export interface SequencePage<T> {
  readonly items: T[];
  readonly beforeCursor: string;
  readonly afterCursor: string;
  readonly hasMoreAfter: boolean;
}

export interface SequenceRange {
  $gt?: number;
  $lt?: number;
}

/**
 * `scope(range)` is the filter of the conversation's records the viewer may see whose sequence
 * lies in `range` (empty for all of them).
 */
export async function sequencePage<T extends Document & { sequence: number }>(
  records: Collection<T>,
  conversationId: string,
  scope: (range: SequenceRange) => StoreFilter<T>,
  request: SequencePageRequest,
): Promise<SequencePage<T>> {
  if (request.beforeCursor !== '' && request.afterCursor !== '')
    throw invalidArgument('Give at most one of before_cursor and after_cursor');
  const limit = pageSize(request.pageSize);
  const before = sequenceOf(request.beforeCursor, conversationId);
  const after = sequenceOf(request.afterCursor, conversationId);
  const exists = async (range: SequenceRange) =>
    (await records.findOne(scope(range), { projection: { _id: 1 } })) !== null;

  let page: T[];
  let hasMoreBefore: boolean;
  let hasMoreAfter: boolean;
  if (after !== undefined) {
    const found = await records.find(scope({ $gt: after }), {
      sort: { sequence: 1 },
      limit: limit + 1,
    });
    page = found.slice(0, limit);
    hasMoreAfter = found.length > limit;
    hasMoreBefore = page.length > 0 && (await exists({ $lt: page[0]!.sequence }));
  } else {
    const found = await records.find(scope(before === undefined ? {} : { $lt: before }), {
      sort: { sequence: -1 },
      limit: limit + 1,
    });
    page = found.slice(0, limit).reverse();
    hasMoreBefore = found.length > limit;
    const newest =
      page[page.length - 1]?.sequence ?? (before === undefined ? undefined : before - 1);
    hasMoreAfter = newest !== undefined && before !== undefined && (await exists({ $gt: newest }));
  }
  const first = page[0];
  const last = page[page.length - 1];
  const afterPosition = last?.sequence ?? after ?? (before === undefined ? 0 : before - 1);
  return {
    items: page,
    beforeCursor: hasMoreBefore && first ? cursorAt(conversationId, first.sequence) : '',
    afterCursor: cursorAt(conversationId, afterPosition),
    hasMoreAfter,
  };
}

const cursorAt = (conversationId: string, sequence: number) =>
  encodeCursor({ sortValue: sequence, id: conversationId });

function sequenceOf(cursor: string, conversationId: string): number | undefined {
  const position = decodeCursor(cursor);
  if (!position) return undefined;
  if (
    position.id !== conversationId ||
    !Number.isInteger(position.sortValue) ||
    position.sortValue < 0
  ) {
    throw invalidArgument('cursor does not belong to this conversation');
  }
  return position.sortValue;
}
