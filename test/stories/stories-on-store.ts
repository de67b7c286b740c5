/** The stories area built on a test store with in-memory shared state, as the app builds it (media's held items on the same store). */
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { AccountRepository } from '../../src/accounts/account-repository.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { HeldMedia } from '../../src/media/held-media.js';
import { MediaItems } from '../../src/media/media-items.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { MessagingEvents } from '../../src/events/messaging-events.js';
import { UserEventStream } from '../../src/events/user-event-stream.js';
import { createStoriesArea } from '../../src/stories/stories-area.js';

export function storiesOn(store: DocumentStore, label: string) {
  const logger = createLogger('silent');
  const shared = new MemorySharedState({ keyPrefix: `${label}:`, logger });
  return createStoriesArea({
    settings: { minTtlSeconds: 1 },
    store,
    conversations: new Conversations(store, new AccountRepository(store)),
    blocks: new BlockList(store, new BlockMirror(shared)),
    events: new MessagingEvents(
      new UserEventStream(shared, { retainCount: 10, retentionMs: 60_000 }),
      logger,
    ),
    media: new HeldMedia(new MediaItems(store)),
  });
}
