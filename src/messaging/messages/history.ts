/**
 * A conversation's history for one viewer, paged by sequence number in either direction
 * (platform/store/sequence-page.ts): only the messages visible to the viewer, from its
 * `historyFrom` on.
 */
import type { Collection, StoreFilter } from '../../platform/store/document-store.js';
import { sequencePage } from '../../platform/store/sequence-page.js';
import type { SequencePageRequest, SequenceRange } from '../../platform/store/sequence-page.js';
import type { StoredMessage } from './stored-message.js';
import { visibleTo } from './visibility.js';

export type HistoryRequest = SequencePageRequest;

export interface HistoryPage {
  readonly messages: StoredMessage[];
  readonly beforeCursor: string;
  readonly afterCursor: string;
  readonly hasMoreAfter: boolean;
}

export class History {
  constructor(private readonly messages: Collection<StoredMessage>) {}

  /** `historyFrom`: the first sequence number the viewer may read (a group member's joining). */
  async read(
    conversationId: string,
    viewer: string,
    request: HistoryRequest,
    historyFrom = 0,
  ): Promise<HistoryPage> {
    const visible = visibleTo(viewer, new Date());
    const scope = (range: SequenceRange): StoreFilter<StoredMessage> => ({
      conversationId,
      ...(historyFrom > 0
        ? { sequence: { $gte: historyFrom, ...range } }
        : Object.keys(range).length > 0
          ? { sequence: range }
          : {}),
      ...visible,
    });
    const { items, ...cursors } = await sequencePage(this.messages, conversationId, scope, request);
    return { messages: items, ...cursors };
  }
}
