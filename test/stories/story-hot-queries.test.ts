/**
 * Every query of the stories' request paths is answered through an index (on MongoDB too when
 * MONGODB_URL is set): posting, the visibility check, the listing (all visible stories, one
 * owner's, the next page), views, the viewers page and counts, deletion, and the account walk.
 * The paths run for real over a recording store.
 */
import { conversationIndexes } from '../../src/messaging/conversations/conversation.js';
import { recordingStore } from '../support/recording-store.js';
import { forEachStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';
import { storiesOn } from './stories-on-store.js';

const [owner, viewer, moved] = ['a1', 'b2', 'c3'].map((pair) => `0x${pair.repeat(20)}`) as [
  string,
  string,
  string,
];

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
    const { stories, accountData } = await storiesOn(store, 'story-hot');
    queries.length = 0;

    const base = {
      mediaId: '',
      ciphertext: new Uint8Array([1]),
      caption: '',
      ttlSeconds: 3600,
      audienceAddresses: [],
    };
    const story = await stories.create(owner, { ...base, audience: 'everyone' });
    await stories.create(owner, { ...base, audience: 'selected', audienceAddresses: [viewer] });
    await stories.create(owner, { ...base, audience: 'contacts' });
    const seen = await stories.visible(story._id, viewer);
    await stories.view(seen, viewer);
    const first = await stories.list(viewer, undefined, 1, undefined);
    await stories.list(viewer, owner, 1, {
      sortValue: first.stories[0]!.createdAt.getTime(),
      id: first.stories[0]!._id,
    });
    await stories.viewers.viewedBy(viewer, [story._id]);
    await stories.viewers.page(story._id, 10, undefined);
    await stories.viewers.count(story._id);
    await stories.owned(story._id, owner);
    await stories.delete(story);
    await accountData.moveAccount(viewer, moved);
    await accountData.deleteAccount(owner);

    const planned = await Promise.all(
      queries.map(async (query) => ({
        ...query,
        plan: await subject.store.explain(
          query.collection,
          query.filter,
          query.sort ? { sort: query.sort } : {},
        ),
      })),
    );
    expect(planned.length).toBeGreaterThan(15);
    expect(
      planned
        .filter(({ plan }) => plan.stage !== 'IXSCAN')
        .map(
          ({ collection, method, filter }) => `${collection}.${method} ${JSON.stringify(filter)}`,
        ),
    ).toEqual([]);
  });
});
