/**
 * Stories' records on the embedded store, through the area's own objects: the TTL index removes
 * an expired story and its views from storage, and the AccountDataOwner moves and deletes an
 * account's stories and views (called directly, as the recovery and deletion walks call it),
 * idempotently.
 */
import type { createStoriesArea } from '../../src/stories/stories-area.js';
import { STORIES } from '../../src/stories/story.js';
import type { StoredStory } from '../../src/stories/story.js';
import { STORY_VIEWS } from '../../src/stories/story-viewers.js';
import type { StoredStoryView } from '../../src/stories/story-viewers.js';
import type { NewStory } from '../../src/stories/stories.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import { storiesOn } from './stories-on-store.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const [A, B, C, NEW] = ['1', '2', '3', '5'].map((digit) => '0x' + digit.repeat(40)) as [
  string,
  string,
  string,
  string,
];

let underTest: StoreUnderTest;
let area: Awaited<ReturnType<typeof createStoriesArea>>;

const text = (overrides: Partial<NewStory> = {}): NewStory => ({
  mediaId: '',
  ciphertext: new Uint8Array([1, 2, 3]),
  caption: '',
  ttlSeconds: 3600,
  audience: 'everyone',
  audienceAddresses: [],
  ...overrides,
});

beforeEach(async () => {
  underTest = await openEmbeddedStore();
  area = await storiesOn(underTest.store, 'stories-records');
});
afterEach(() => underTest.dispose());

const stored = () =>
  underTest.store.collection<StoredStory>(STORIES).find({}, { sort: { _id: 1 } });
const views = () =>
  underTest.store.collection<StoredStoryView>(STORY_VIEWS).find({}, { sort: { _id: 1 } });

it('removes an expired story and its views from storage (TTL)', async () => {
  const { stories } = area;
  const short = await stories.create(A, text({ ttlSeconds: 1 }));
  const lasting = await stories.create(A, text());
  await stories.view(short, B);
  await stories.view(lasting, B);
  expect((await views()).length).toBe(2);
  const deadline = Date.now() + 1000 + underTest.ttlGraceMs + 1000;
  while (((await stored()).length > 1 || (await views()).length > 1) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 100));
  expect((await stored()).map((story) => story._id)).toEqual([lasting._id]);
  expect((await views()).map((view) => view.storyId)).toEqual([lasting._id]);
});

it('moves an account: its stories, the views of them, its views, and its place in selected audiences', async () => {
  const { stories } = area;
  const own = await stories.create(A, text());
  const others = await stories.create(B, text());
  const selecting = await stories.create(
    C,
    text({ audience: 'selected', audienceAddresses: [A, B] }),
  );
  await stories.view(own, B);
  await stories.view(others, A);
  await stories.view(others, NEW);
  for (let run = 0; run < 2; run++) await area.accountData.moveAccount(A, NEW);
  const after = await stored();
  expect(after.find((story) => story._id === own._id)?.ownerAddress).toBe(NEW);
  expect(after.find((story) => story._id === selecting._id)?.audienceAddresses).toEqual([NEW, B]);
  expect(
    (await views()).map((view) => [view.storyId, view.ownerAddress, view.viewerAddress]).sort(),
  ).toEqual(
    [
      [own._id, NEW, B],
      [others._id, B, NEW],
    ].sort(),
  );
  expect(await area.stories.visible(own._id, NEW)).toMatchObject({ ownerAddress: NEW });
});

it('deletes an account: its stories with their views, and its views of others, leaving the rest', async () => {
  const { stories } = area;
  const own = await stories.create(A, text());
  const others = await stories.create(B, text());
  await stories.view(own, B);
  await stories.view(others, A);
  await stories.view(others, C);
  for (let run = 0; run < 2; run++) await area.accountData.deleteAccount(A);
  expect((await stored()).map((story) => story._id)).toEqual([others._id]);
  expect((await views()).map((view) => [view.storyId, view.viewerAddress])).toEqual([
    [others._id, C],
  ]);
});
