/**
 * Stories over real HTTP, native gRPC and real WebSocket clients, on the single-process
 * embedded default (STORY_MIN_TTL_SECONDS=1 allows 2-second stories): posting text stories,
 * the three audiences, blocks both ways, the listing grouped by author and newest first, views
 * counted once and announced to the owner over /ws, the owner-only viewers list and deletion,
 * expiry from every read path and from storage, media stories refused until media is wired,
 * and bad input on every route.
 */
import { fileURLToPath } from 'node:url';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { realtimeClientsForThisFile } from '../support/realtime-client.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'false',
  STORY_MIN_TTL_SECONDS: '1',
});
const connect = realtimeClientsForThisFile(service);

const addressOf = (session: SignedIn) => session.user.address.toLowerCase();
const b64 = (text: string) => Buffer.from(text).toString('base64');
let counter = 0;

const post = async (owner: SignedIn, body: Record<string, unknown> = {}) =>
  expectOk(
    await api.post(
      '/api/v1/stories',
      { ciphertext: b64(`story ${++counter}`), ...body },
      bearer(owner),
    ),
  ).story;
const listed = async (viewer: SignedIn, query = '') =>
  expectOk(await api.get(`/api/v1/stories${query}`, bearer(viewer)));
const idsSeenBy = async (viewer: SignedIn, owner?: SignedIn) =>
  (await listed(viewer, owner ? `?owner_address=${owner.user.address}` : '')).stories.map(
    (story: { id: string }) => story.id,
  );
const view = (viewer: SignedIn, storyId: string) =>
  api.post(`/api/v1/stories/${storyId}/view`, {}, bearer(viewer));
const viewers = (caller: SignedIn, storyId: string) =>
  api.get(`/api/v1/stories/${storyId}/views`, bearer(caller));
/** A direct chat between the two: what makes them each other's `contacts`. */
const chat = async (from: SignedIn, to: SignedIn) =>
  expectOk(
    await api.post(
      '/api/v1/send',
      {
        client_message_id: `chat-${++counter}`,
        recipient_address: to.user.address,
        ciphertext: b64('hi'),
      },
      bearer(from),
    ),
  );

/** `count` signed-in users. */
const users = (count: number) =>
  Promise.all(Array.from({ length: count }, () => signIn(service.baseUrl))) as Promise<
    [SignedIn, SignedIn, SignedIn, SignedIn, SignedIn]
  >;

it('posts a text story with the 24-hour default and shows the owner its audience and count', async () => {
  const alice = await signIn(service.baseUrl);
  const story = await post(alice, { caption: 'sunset' });
  expect(story).toEqual({
    id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    owner_address: addressOf(alice),
    media_id: '',
    ciphertext: b64(`story ${counter}`),
    caption: 'sunset',
    created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    expires_at: expect.any(String),
    view_count: 0,
    viewed: true,
    audience: 'contacts',
  });
  expect(Date.parse(story.expires_at) - Date.parse(story.created_at)).toBe(86_400_000);
  const short = await post(alice, { ttl_seconds: 3600, audience: 'everyone' });
  expect(Date.parse(short.expires_at) - Date.parse(short.created_at)).toBe(3_600_000);
  expect(await idsSeenBy(alice)).toEqual([short.id, story.id]);
});

it('shows a story to its audience only: contacts, everyone, a selected set; never across a block', async () => {
  const [alice, friend, stranger, chosen, blocker] = await users(5);
  await chat(friend, alice);
  await chat(alice, blocker);
  const forContacts = await post(alice);
  const forEveryone = await post(alice, { audience: 'everyone' });
  const forChosen = await post(alice, {
    audience: 'selected',
    audience_addresses: [chosen.user.address.toUpperCase().replace('0X', '0x')],
  });

  expect(await idsSeenBy(friend, alice)).toEqual([forEveryone.id, forContacts.id]);
  expect(await idsSeenBy(stranger, alice)).toEqual([forEveryone.id]);
  expect(await idsSeenBy(chosen, alice)).toEqual([forChosen.id, forEveryone.id]);
  expect(await idsSeenBy(blocker, alice)).toEqual([forEveryone.id, forContacts.id]);
  expectFailure(await view(stranger, forContacts.id), 404, 'NOT_FOUND');
  expectFailure(await view(stranger, forChosen.id), 404, 'NOT_FOUND');
  expectOk(await view(chosen, forChosen.id));

  // A block hides every story, either way, from lists and views alike.
  expectOk(
    await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(blocker)),
  );
  expect(await idsSeenBy(blocker, alice)).toEqual([]);
  expectFailure(await view(blocker, forEveryone.id), 404, 'NOT_FOUND');
  expectOk(
    await api.post('/api/v1/block-contact', { address: stranger.user.address }, bearer(alice)),
  );
  expect(await idsSeenBy(stranger, alice)).toEqual([]);
  expectFailure(await view(stranger, forEveryone.id), 404, 'NOT_FOUND');
  expect(await idsSeenBy(friend, alice)).toEqual([forEveryone.id, forContacts.id]);
});

it('lists visible stories newest first and grouped by author, with the caller-specific fields', async () => {
  const [viewer, first, second] = await users(3);
  const older = await post(first, { audience: 'everyone' });
  await sleep(5);
  const middle = await post(second, { audience: 'everyone' });
  await sleep(5);
  const newest = await post(first, { audience: 'everyone' });
  expectOk(await view(viewer, older.id));
  const page = await listed(viewer);
  const mine = page.stories.filter((story: { owner_address: string }) =>
    [addressOf(first), addressOf(second)].includes(story.owner_address),
  );
  expect(mine.map((story: { id: string }) => story.id)).toEqual([newest.id, middle.id, older.id]);
  expect(
    mine.map((story: { viewed: boolean; view_count: number; audience: string }) => [
      story.viewed,
      story.view_count,
      story.audience,
    ]),
  ).toEqual([
    [false, 0, ''],
    [false, 0, ''],
    [true, 0, ''],
  ]);
  const groups = page.authors.filter((author: { owner_address: string }) =>
    [addressOf(first), addressOf(second)].includes(author.owner_address),
  );
  expect(
    groups.map((author: { owner_address: string; stories: { id: string }[] }) => [
      author.owner_address,
      author.stories.map((story) => story.id),
    ]),
  ).toEqual([
    [addressOf(first), [newest.id, older.id]],
    [addressOf(second), [middle.id]],
  ]);
  // Paging walks the same order without repeats.
  const one = await listed(first, `?owner_address=${first.user.address}&page_size=1`);
  expect(one.stories.map((story: { id: string }) => story.id)).toEqual([newest.id]);
  const two = await listed(
    first,
    `?owner_address=${first.user.address}&page_size=1&cursor=${one.next_cursor}`,
  );
  expect(two.stories.map((story: { id: string }) => story.id)).toEqual([older.id]);
});

it("records a view once per viewer and tells the owner over /ws; the viewers list is the owner's", async () => {
  const [owner, bob, carol] = await users(3);
  const ownerSocket = await connect(owner);
  const story = await post(owner, { audience: 'everyone' });
  expect(expectOk(await view(bob, story.id))).toEqual({ success: true, message: 'Story viewed' });
  const event = await ownerSocket.next('story.viewed', (frame) => frame.data.story_id === story.id);
  expect(event.data).toEqual({
    story_id: story.id,
    viewer_address: addressOf(bob),
    viewed_at: expect.any(String),
    view_count: 1,
  });
  expect(typeof event.seq).toBe('number');
  expect(expectOk(await view(bob, story.id))).toEqual({
    success: true,
    message: 'Story already viewed',
  });
  expect(expectOk(await view(owner, story.id))).toEqual({
    success: true,
    message: 'Your own story',
  });
  expectOk(await view(carol, story.id));
  await ownerSocket.next('story.viewed', (frame) => frame.data.viewer_address === addressOf(carol));
  await sleep(300);
  expect(
    ownerSocket
      .ofType('story.viewed')
      .filter((frame) => frame.data.story_id === story.id)
      .map((frame) => frame.data.viewer_address),
  ).toEqual([addressOf(bob), addressOf(carol)]);

  const list = expectOk(await viewers(owner, story.id));
  expect(list.view_count).toBe(2);
  expect(list.views.map((each: { viewer_address: string }) => each.viewer_address)).toEqual([
    addressOf(carol),
    addressOf(bob),
  ]);
  expect((await idsSeenBy(owner, owner)).length).toBe(1);
  expect((await listed(owner, `?owner_address=${owner.user.address}`)).stories[0]).toMatchObject({
    view_count: 2,
    viewed: true,
    audience: 'everyone',
  });
  expect((await listed(bob, `?owner_address=${owner.user.address}`)).stories[0]).toMatchObject({
    view_count: 0,
    viewed: true,
    audience: '',
  });
  expectFailure(await viewers(bob, story.id), 403, 'FORBIDDEN');
  const hidden = await post(owner);
  expectFailure(await viewers(bob, hidden.id), 404, 'NOT_FOUND');
});

it('lets only the owner delete a story, which disappears with its views', async () => {
  const [owner, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const story = await post(owner, { audience: 'everyone' });
  expectOk(await view(bob, story.id));
  expectFailure(await api.delete(`/api/v1/stories/${story.id}`, bearer(bob)), 403, 'FORBIDDEN');
  expect(expectOk(await api.delete(`/api/v1/stories/${story.id}`, bearer(owner)))).toEqual({
    success: true,
    message: 'Story deleted',
  });
  expectFailure(await view(bob, story.id), 404, 'NOT_FOUND');
  expectFailure(await viewers(owner, story.id), 404, 'NOT_FOUND');
  expectFailure(await api.delete(`/api/v1/stories/${story.id}`, bearer(owner)), 404, 'NOT_FOUND');
  expect(await idsSeenBy(bob, owner)).toEqual([]);
});

it('drops an expired story from every read path', async () => {
  const [owner, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const story = await post(owner, { audience: 'everyone', ttl_seconds: 2 });
  expectOk(await view(bob, story.id));
  expect(await idsSeenBy(bob, owner)).toEqual([story.id]);
  await sleep(2100);
  expect(await idsSeenBy(bob, owner)).toEqual([]);
  expect(await idsSeenBy(owner, owner)).toEqual([]);
  expectFailure(await view(bob, story.id), 404, 'NOT_FOUND');
  expectFailure(await viewers(owner, story.id), 404, 'NOT_FOUND');
  expectFailure(await api.delete(`/api/v1/stories/${story.id}`, bearer(owner)), 404, 'NOT_FOUND');
});

it('shows an uploaded image or video: its audience downloads the media, nobody else, and not after the story is deleted', async () => {
  const [owner, friend, stranger] = await users(3);
  const bytes = Buffer.from('encrypted story image bytes');
  const upload = async (who: SignedIn, kind: string) =>
    expectOk(
      await api.post(
        '/api/v1/upload-media',
        { kind, content_type: 'application/octet-stream', data: bytes.toString('base64') },
        bearer(who),
      ),
    ).media_id as string;
  const download = async (who: SignedIn, mediaId: string) =>
    (await fetch(api.url(`/api/v1/media/${mediaId}`), { headers: bearer(who) })).status;
  const image = await upload(owner, 'image');
  const story = await post(owner, {
    media_id: image,
    audience: 'selected',
    audience_addresses: [friend.user.address],
  });
  expect(story.media_id).toBe(image);
  expect(await download(friend, image)).toBe(200);
  expect(await download(stranger, image)).toBe(404);
  expectOk(await api.delete(`/api/v1/stories/${story.id}`, bearer(owner)));
  expect(await download(friend, image)).toBe(404);
  expect(await download(owner, image)).toBe(200);

  expect((await post(owner, { media_id: await upload(owner, 'video') })).media_id).toBeTruthy();
  expectFailure(
    await api.post('/api/v1/stories', { media_id: await upload(owner, 'file') }, bearer(owner)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/stories', { media_id: await upload(stranger, 'image') }, bearer(owner)),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await api.post('/api/v1/stories', { media_id: 'abc123' }, bearer(owner)),
    404,
    'NOT_FOUND',
  );
});

it('refuses bad input on every route with the envelope and the right status', async () => {
  const owner = await signIn(service.baseUrl);
  const create = (body: unknown) => api.post('/api/v1/stories', body, bearer(owner));
  const address = '0x' + 'a'.repeat(40);
  for (const body of [
    {},
    { ciphertext: b64('x'.repeat(65_537)) },
    { ciphertext: b64('x'), caption: 'c'.repeat(501) },
    { ciphertext: b64('x'), ttl_seconds: 86_401 },
    { ciphertext: b64('x'), audience: 'friends' },
    { ciphertext: b64('x'), audience: 'selected' },
    { ciphertext: b64('x'), audience: 'selected', audience_addresses: ['nope'] },
    {
      ciphertext: b64('x'),
      audience: 'selected',
      audience_addresses: Array.from(
        { length: 501 },
        (_, i) => '0x' + i.toString(16).padStart(40, '0'),
      ),
    },
    { ciphertext: b64('x'), audience: 'everyone', audience_addresses: [address] },
    { media_id: 'bad id!' },
    { ciphertext: 'not base64 !!' },
    { ciphertext: b64('x'), ttl_seconds: -5 },
    { ciphertext: b64('x'), audience_addresses: 'one' },
  ]) {
    expectFailure(await create(body), 400, 'INVALID_ARGUMENT');
  }
  expectFailure(
    await api.post('/api/v1/stories', 'not json', bearer(owner)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await view(owner, 'bad id!'), 400, 'INVALID_ARGUMENT');
  expectFailure(await view(owner, 'x'.repeat(65)), 400, 'INVALID_ARGUMENT');
  expectFailure(await view(owner, 'unknown'), 404, 'NOT_FOUND');
  expectFailure(await viewers(owner, 'unknown'), 404, 'NOT_FOUND');
  expectFailure(
    await api.get('/api/v1/stories?owner_address=nope', bearer(owner)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.get('/api/v1/stories?page_size=201', bearer(owner)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await api.get('/api/v1/stories?cursor=zz', bearer(owner)), 400, 'INVALID_ARGUMENT');
  const story = await post(owner);
  expectFailure(
    await api.get(`/api/v1/stories/${story.id}/views?page_size=-1`, bearer(owner)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await api.get('/api/v1/stories'), 401, 'UNAUTHORIZED');
  expectFailure(await api.post(`/api/v1/stories/${story.id}/view`, {}), 401, 'UNAUTHORIZED');
  // The unversioned prefix serves the same routes.
  expectOk(await api.post(`/api/stories/${story.id}/view`, {}, bearer(owner)));
});

it('serves the same stories over native gRPC', async () => {
  const [owner, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const client = grpcClient(
    service.grpcAddress,
    fileURLToPath(new URL('../../proto/service/v1/stories.proto', import.meta.url)),
    'service.v1.StoriesService',
  );
  const as = (session: SignedIn) => {
    const metadata = new grpc.Metadata();
    metadata.set('authorization', `Bearer ${session.accessToken}`);
    return metadata;
  };
  const { story } = await unary(
    client,
    'CreateStory',
    { ciphertext: Buffer.from('grpc story'), audience: 'everyone' },
    as(owner),
  );
  expect(await unary(client, 'ViewStory', { story_id: story.id }, as(bob))).toMatchObject({
    success: true,
    message: 'Story viewed',
  });
  expect(await unary(client, 'ListStoryViews', { story_id: story.id }, as(owner))).toMatchObject({
    view_count: 1,
    views: [{ viewer_address: addressOf(bob) }],
  });
  await expect(
    unary(client, 'ListStoryViews', { story_id: story.id }, as(bob)),
  ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
  await expect(unary(client, 'CreateStory', {}, as(owner))).rejects.toMatchObject({
    code: grpc.status.INVALID_ARGUMENT,
  });
  await expect(unary(client, 'ViewStory', { story_id: 'unknown' }, as(bob))).rejects.toMatchObject({
    code: grpc.status.NOT_FOUND,
  });
  client.close();
});
