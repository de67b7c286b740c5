/**
 * A conversation's history for one viewer, paged by sequence number in either direction.
 * Cursors are opaque to clients and carry the conversation, so a cursor of another
 * conversation is refused rather than silently paging elsewhere.
 */
import { decodeCursor, encodeCursor, pageSize } from '../../platform/api/page-cursor.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { Collection, StoreFilter } from '../../platform/store/document-store.js';
import type { StoredMessage } from './stored-message.js';
import { visibleTo } from './visibility.js';

export interface HistoryRequest {
  readonly pageSize: number;
  readonly beforeCursor: string;
  readonly afterCursor: string;
}

export interface HistoryPage {
  readonly messages: StoredMessage[];
  readonly beforeCursor: string;
  readonly afterCursor: string;
  readonly hasMoreAfter: boolean;
}

export class History {
  constructor(private readonly messages: Collection<StoredMessage>) {}

  /** `historyFrom`: the first sequence number the viewer may read (a group member's joining). */
  read(conversationId: string, viewer: string, request: HistoryRequest, historyFrom = 0): Promise<HistoryPage> {
    return readHistory(this.messages, conversationId, viewer, request, historyFrom);
  }
}

async function readHistory(messages: Collection<StoredMessage>, conversationId: string, viewer: string, request: HistoryRequest, historyFrom: number): Promise<HistoryPage> {
  if (request.beforeCursor !== '' && request.afterCursor !== '') throw invalidArgument('Give at most one of before_cursor and after_cursor');
  const limit = pageSize(request.pageSize);
  const before = sequenceOf(request.beforeCursor, conversationId);
  const after = sequenceOf(request.afterCursor, conversationId);
  const visible = visibleTo(viewer, new Date());
  const inConversation = (sequence: { $gt?: number; $lt?: number } = {}): StoreFilter<StoredMessage> => ({
    conversationId,
    ...(historyFrom > 0 ? { sequence: { $gte: historyFrom, ...sequence } } : Object.keys(sequence).length > 0 ? { sequence } : {}),
    ...visible,
  });

  let page: StoredMessage[];
  let hasMoreBefore: boolean;
  let hasMoreAfter: boolean;
  if (after !== undefined) {
    const found = await messages.find(inConversation({ $gt: after }), { sort: { sequence: 1 }, limit: limit + 1 });
    page = found.slice(0, limit);
    hasMoreAfter = found.length > limit;
    hasMoreBefore = page.length > 0 && (await exists(messages, inConversation({ $lt: page[0]!.sequence })));
  } else {
    const found = await messages.find(inConversation(before === undefined ? undefined : { $lt: before }), { sort: { sequence: -1 }, limit: limit + 1 });
    page = found.slice(0, limit).reverse();
    hasMoreBefore = found.length > limit;
    const newest = page[page.length - 1]?.sequence ?? (before === undefined ? undefined : before - 1);
    hasMoreAfter = newest !== undefined && before !== undefined && (await exists(messages, inConversation({ $gt: newest })));
  }
  const first = page[0];
  const last = page[page.length - 1];
  const afterPosition = last?.sequence ?? after ?? (before === undefined ? 0 : before - 1);
  return {
    messages: page,
    beforeCursor: hasMoreBefore && first ? cursorAt(conversationId, first.sequence) : '',
    afterCursor: cursorAt(conversationId, afterPosition),
    hasMoreAfter,
  };
}

const cursorAt = (conversationId: string, sequence: number) => encodeCursor({ sortValue: sequence, id: conversationId });

function sequenceOf(cursor: string, conversationId: string): number | undefined {
  const position = decodeCursor(cursor);
  if (!position) return undefined;
  if (position.id !== conversationId || !Number.isInteger(position.sortValue) || position.sortValue < 0) {
    throw invalidArgument('cursor does not belong to this conversation');
  }
  return position.sortValue;
}

async function exists(messages: Collection<StoredMessage>, filter: StoreFilter<StoredMessage>): Promise<boolean> {
  return (await messages.findOne(filter, { projection: { _id: 1 } })) !== null;
}
