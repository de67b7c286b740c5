/**
 * Every query of the stories' request paths is answered through an index (on MongoDB too when
 * MONGODB_URL is set): posting, the visibility check, the listing (all visible stories, one
 * owner's, the next page), views, the viewers page and counts, deletion, and the account walk.
 * The paths run for real over a recording store.
 */
import { BlockList } from '../../src/contacts/block-list.js';
import { BlockMirror } from '../../src/contacts/block-mirror.js';
import { AccountRepository } from '../../src/identity/accounts/account-repository.js';
import { conversationIndexes } from '../../src/messaging/conversations/conversation.js';
import { Conversations } from '../../src/messaging/conversations/conversations.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { MessagingEvents } from '../../src/realtime/events/messaging-events.js';
import { UserEventStream } from '../../src/realtime/events/user-event-stream.js';
import { createStoriesArea } from '../../src/stories/stories-area.js';
import { recordingStore } from '../support/recording-store.js';
import { forEachStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const [owner, viewer, moved] = ['a1', 'b2', 'c3'].map((pair) => `0x${pair.repeat(20)}`) as [string, string, string];
const logger = createLogger('silent');

forEachStore('story_hot_queries', (engine, open) => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await open();
  });
  afterAll(() => subject.dispose());

  test(`story queries use an index on ${engine}`, async () => {
    const { store, queries } = recordingStore(subject.store);
    // Messaging's (the direct chats behind `contacts`); contacts' blocks are read by _id.
    await store.ensureIndexes(conversationIndexes);
    const shared = new MemorySharedState({ keyPrefix: 'story-hot:', logger });
    const { stories, accountData } = await createStoriesArea({
      settings: { minTtlSeconds: 1 },
      store,
      conversations: new Conversations(store, new AccountRepository(store)),
      blocks: new BlockList(store, new BlockMirror(shared)),
      events: new MessagingEvents(new UserEventStream(shared, { retainCount: 10, retentionMs: 60_000 }), logger),
      media: undefined,
    });
    queries.length = 0;

    const base = { mediaId: '', ciphertext: new Uint8Array([1]), caption: '', ttlSeconds: 3600, audienceAddresses: [] };
    const story = await stories.create(owner, { ...base, audience: 'everyone' });
    await stories.create(owner, { ...base, audience: 'selected', audienceAddresses: [viewer] });
    await stories.create(owner, { ...base, audience: 'contacts' });
    const seen = await stories.visible(story._id, viewer);
    await stories.view(seen, viewer);
    const first = await stories.list(viewer, undefined, 1, undefined);
    await stories.list(viewer, owner, 1, { sortValue: first.stories[0]!.createdAt.getTime(), id: first.stories[0]!._id });
    await stories.viewers.viewedBy(viewer, [story._id]);
    await stories.viewers.page(story._id, 10, undefined);
    await stories.viewers.count(story._id);
    await stories.owned(story._id, owner);
    await stories.delete(story);
    await accountData.moveAccount(viewer, moved);
    await accountData.deleteAccount(owner);

    const planned = await Promise.all(queries.map(async (query) => ({ ...query, plan: await subject.store.explain(query.collection, query.filter, query.sort ? { sort: query.sort } : {}) })));
    expect(planned.length).toBeGreaterThan(15);
    expect(planned.filter(({ plan }) => plan.stage !== 'IXSCAN').map(({ collection, method, filter }) => `${collection}.${method} ${JSON.stringify(filter)}`)).toEqual([]);
  });
});
