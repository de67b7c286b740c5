/**
 * What the channels area gives other areas, called directly on a real embedded store and the
 * in-process shared state: `ChannelAccess` (for polls), and the AccountDataOwner: a move re-keys
 * roles (keeping the stronger one where both addresses had one), read markers (keeping the one
 * further ahead) and the follow mirror; a deletion removes owned channels with their posts,
 * read markers and followers (releasing the media the channels held), and the user's roles and
 * read markers elsewhere. Both can be run again after a crash.
 */
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { PushQueue } from '../../src/push/delivery/push-queue.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import { createChannelsArea } from '../../src/channels/channels-area.js';
import { HeldMedia } from '../../src/media/held-media.js';
import { MEDIA, NEVER } from '../../src/media/media-item.js';
import type { MediaItem } from '../../src/media/media-item.js';
import { MediaItems } from '../../src/media/media-items.js';
import { ChannelRepository } from '../../src/channels/channel.js';
import { ChannelMembers } from '../../src/channels/channel-members.js';
import { ChannelPosts } from '../../src/channels/channel-posts.js';
import { ChannelReadMarkers } from '../../src/channels/channel-read-markers.js';
import type { AccountRepository } from '../../src/accounts/account-repository.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { mirrorsCompleteKey } from '../../src/platform/shared-state/mirror-completeness.js';
import { ALL_SHARD_BUCKETS } from '../../src/platform/shared-state/shard-buckets.js';
import { ChannelFollows } from '../../src/events/channel-follows.js';
import { ChannelPostStream } from '../../src/events/channel-post-stream.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';
import { ADMIT_ALL } from '../support/admit-all.js';

const OLD = `0x${'1'.repeat(40)}`;
const NEW = `0x${'2'.repeat(40)}`;
const OTHER = `0x${'3'.repeat(40)}`;

let underTest: StoreUnderTest;
let state: MemorySharedState;
let follows: ChannelFollows;
let area: Awaited<ReturnType<typeof createChannelsArea>>;
let channels: ChannelRepository;
let members: ChannelMembers;
let held: HeldMedia;

beforeEach(async () => {
  underTest = await openEmbeddedStore();
  const logger = createLogger('silent');
  state = new MemorySharedState({ keyPrefix: 'test:', logger });
  await Promise.all(
    ALL_SHARD_BUCKETS.map((bucket) => state.set(mirrorsCompleteKey(bucket), 'yes')),
  );
  follows = new ChannelFollows(state);
  area = await createChannelsArea({
    settings: { maxSubscriptions: 100, replayPosts: 100, replayRetentionMs: 60_000 },
    store: underTest.store,
    accounts: {} as AccountRepository,
    media: (held = new HeldMedia(new MediaItems(underTest.store))),
    posts: new ChannelPostStream(state, { retainCount: 100, retentionMs: 60_000 }),
    follows,
    wakeUps: new WakeUps(new PushQueue(state), logger, new OutageLog(logger)),
    admission: ADMIT_ALL,
    logger,
    outages: new OutageLog(logger),
  });
  channels = new ChannelRepository(underTest.store);
  members = new ChannelMembers(underTest.store);
});
afterEach(() => underTest.dispose());

/** A channel owned by `owner` with the given roles, written as the service writes them. */
async function channelWith(
  id: string,
  owner: string,
  roles: Record<string, 'admin' | 'subscriber'>,
): Promise<void> {
  await channels.insert({
    _id: id,
    name: id,
    nameLower: id,
    description: '',
    avatarMediaId: '',
    ownerAddress: owner,
    isPublic: true,
    createdAt: new Date(),
    subscriberCount: 0,
    lastPostAt: null,
    lastSequence: 0,
  });
  await members.add({ channelId: id, address: owner, role: 'owner', since: new Date() });
  await follows.follow(owner, id);
  for (const [address, role] of Object.entries(roles)) {
    await members.add({ channelId: id, address, role, since: new Date() });
    if (role === 'subscriber') await channels.addSubscribers(id, 1);
    await follows.follow(address, id);
  }
}

const roleOf = async (channelId: string, address: string) =>
  (await members.find(channelId, address))?.role;
const countOf = async (channelId: string) => (await channels.find(channelId))?.subscriberCount;

it('a move re-keys ownership and roles, keeps the stronger role on a merge, and can run again', async () => {
  await channelWith('owned', OLD, { [OTHER]: 'subscriber' });
  await channelWith('admin-there', OTHER, { [OLD]: 'admin', [NEW]: 'subscriber' });
  await channelWith('both-subscribe', OTHER, { [OLD]: 'subscriber', [NEW]: 'subscriber' });
  await channelWith('only-old', OTHER, { [OLD]: 'subscriber' });

  await area.accountData.moveAccount(OLD, NEW);
  await area.accountData.moveAccount(OLD, NEW);

  expect((await channels.find('owned'))?.ownerAddress).toBe(NEW);
  expect(await roleOf('owned', NEW)).toBe('owner');
  expect(await roleOf('admin-there', NEW)).toBe('admin');
  expect(await countOf('admin-there')).toBe(0);
  expect(await roleOf('both-subscribe', NEW)).toBe('subscriber');
  expect(await countOf('both-subscribe')).toBe(1);
  expect(await roleOf('only-old', NEW)).toBe('subscriber');
  expect(await countOf('only-old')).toBe(1);
  expect(await members.ofAddress(OLD)).toEqual([]);
  expect(await follows.of(OLD)).toEqual([]);
  expect(((await follows.of(NEW)) as string[]).sort()).toEqual([
    'admin-there',
    'both-subscribe',
    'only-old',
    'owned',
  ]);
});

it('a deletion removes owned channels with their posts and followers, and the roles elsewhere', async () => {
  await channelWith('owned', OLD, { [OTHER]: 'subscriber' });
  await channelWith('elsewhere', OTHER, { [OLD]: 'subscriber' });
  await channelWith('administered', OTHER, { [OLD]: 'admin' });
  const posts = new ChannelPosts(underTest.store);
  await posts.append({
    channelId: 'owned',
    senderAddress: OLD,
    clientMessageId: 'a',
    kind: 'text',
    ciphertext: new Uint8Array([1]),
    mediaId: '',
    durationMs: 0,
  });

  await area.accountData.deleteAccount(OLD);
  await area.accountData.deleteAccount(OLD);

  expect(await channels.find('owned')).toBeNull();
  expect(await posts.posts.countDocuments({ channelId: 'owned' })).toBe(0);
  expect(await members.members.countDocuments({ channelId: 'owned' })).toBe(0);
  expect(await follows.of(OTHER)).toEqual(expect.not.arrayContaining(['owned']));
  expect(await members.ofAddress(OLD)).toEqual([]);
  expect(await countOf('elsewhere')).toBe(0);
  expect(await roleOf('administered', OTHER)).toBe('owner');
  expect(await follows.of(OLD)).toEqual([]);
});

it('read markers: a move re-keys them, keeping the one further ahead; a deletion removes them', async () => {
  const markers = new ChannelReadMarkers(underTest.store);
  await channelWith('behind', OTHER, { [OLD]: 'subscriber', [NEW]: 'subscriber' });
  await channelWith('ahead', OTHER, { [OLD]: 'subscriber', [NEW]: 'subscriber' });
  await channelWith('only-old', OTHER, { [OLD]: 'subscriber' });
  await markers.advance('behind', OLD, 7, 'p7');
  await markers.advance('behind', NEW, 3, 'p3');
  await markers.advance('ahead', OLD, 2, 'p2');
  await markers.advance('ahead', NEW, 9, 'p9');
  await markers.advance('only-old', OLD, 4, 'p4');

  await area.accountData.moveAccount(OLD, NEW);
  await area.accountData.moveAccount(OLD, NEW);

  expect(await markers.markers.countDocuments({ address: OLD })).toBe(0);
  expect(await markers.find('behind', NEW)).toMatchObject({
    lastReadSequence: 7,
    lastReadMessageId: 'p7',
  });
  expect(await markers.find('ahead', NEW)).toMatchObject({
    lastReadSequence: 9,
    lastReadMessageId: 'p9',
  });
  expect(await markers.find('only-old', NEW)).toMatchObject({
    lastReadSequence: 4,
    lastReadMessageId: 'p4',
  });

  await channelWith('owned-by-new', NEW, { [OTHER]: 'subscriber' });
  await markers.advance('owned-by-new', OTHER, 1, 'q1');
  await markers.advance('behind', OTHER, 5, 'p5');
  await area.accountData.deleteAccount(NEW);
  await area.accountData.deleteAccount(NEW);

  expect(await markers.markers.countDocuments({ address: NEW })).toBe(0);
  expect(await markers.find('owned-by-new', OTHER)).toBeNull();
  expect(await markers.find('behind', OTHER)).toMatchObject({ lastReadSequence: 5 });
});

it('a deletion releases the avatar and post media its owned channels held, and can run again', async () => {
  await channelWith('owned', OLD, {});
  const media = underTest.store.collection<MediaItem>(MEDIA);
  const stored = (id: string, kind: MediaItem['kind']): MediaItem => ({
    ...{
      _id: id,
      ownerAddress: OLD,
      kind,
      contentType: 'application/octet-stream',
      size: 1,
      sha256: '00',
    },
    ...{
      createdAt: new Date(),
      state: 'stored',
      references: [],
      revision: 0,
      releaseCheckAt: NEVER,
    },
  });
  await media.insertOne(stored('avatar-1', 'avatar'));
  await media.insertOne(stored('file-1', 'file'));
  await held.holdAvatar(OLD, 'avatar-1', { kind: 'channel', id: 'owned' });
  await channels.channels.updateOne({ _id: 'owned' }, { $set: { avatarMediaId: 'avatar-1' } });
  const posts = new ChannelPosts(underTest.store);
  const { post } = await posts.append({
    channelId: 'owned',
    senderAddress: OLD,
    clientMessageId: 'm',
    kind: 'file',
    ciphertext: new Uint8Array([1]),
    mediaId: 'file-1',
    durationMs: 0,
  });
  await held.attachToPost(OLD, 'file-1', 'file', { channelId: 'owned', postId: post._id });
  expect((await media.findOne({ _id: 'file-1' }))?.references).toMatchObject([
    { kind: 'channel_post', id: post._id, conversationId: 'owned' },
  ]);

  await area.accountData.deleteAccount(OLD);
  await area.accountData.deleteAccount(OLD);

  for (const id of ['avatar-1', 'file-1']) {
    const item = await media.findOne({ _id: id });
    expect(item?.references).toEqual([]);
    // Due for the sweeper's next look, not "never".
    expect(item!.releaseCheckAt.getTime()).toBeLessThanOrEqual(Date.now());
  }
});

it('ChannelAccess: anyone reads a public channel, only members a private one; owner and admins publish', async () => {
  await channelWith('public', OLD, { [NEW]: 'admin' });
  await channelWith('private', OLD, { [OTHER]: 'subscriber' });
  await channels.channels.updateOne({ _id: 'private' }, { $set: { isPublic: false } });
  const stranger = `0x${'4'.repeat(40)}`;
  expect(await area.access.mayRead('public', stranger)).toBe(true);
  expect(await area.access.mayRead('private', stranger)).toBe(false);
  expect(await area.access.mayRead('private', OTHER)).toBe(true);
  expect(await area.access.mayRead('unknown', OLD)).toBe(false);
  expect(await area.access.mayPublish('public', OLD)).toBe(true);
  expect(await area.access.mayPublish('public', NEW)).toBe(true);
  expect(await area.access.mayPublish('private', OTHER)).toBe(false);
  expect(await area.access.mayPublish('public', stranger)).toBe(false);
});

it('reactions follow a move (counts unchanged) and come off the counts with a deletion', async () => {
  await channelWith('reacted', OTHER, { [OLD]: 'subscriber' });
  const { message: post } = await area.conversations.publish(OTHER, 'reacted', {
    clientMessageId: 'reacted-post',
    kind: 'text',
    ciphertext: Buffer.from('post'),
    mediaId: '',
    durationMs: 0,
  });
  await area.conversations.react(OLD, 'reacted', post.id, '👍', true);
  await area.conversations.react(OLD, 'reacted', post.id, '🔥', true);
  await area.conversations.react(OTHER, 'reacted', post.id, '👍', true);
  const counts = async (reader: string) => {
    const [seen] = await area.conversations.postsFor(reader, 'reacted', [post.id]);
    return {
      counts: seen!.reactionCounts.map(({ key, count }) => [key, count]),
      mine: seen!.myReactionKeys,
    };
  };
  await area.accountData.moveAccount(OLD, NEW);
  await area.accountData.moveAccount(OLD, NEW);
  expect(await counts(NEW)).toEqual({
    counts: [
      ['👍', 2],
      ['🔥', 1],
    ],
    mine: ['👍', '🔥'],
  });
  expect((await counts(OLD)).mine).toEqual([]);
  await area.accountData.deleteAccount(NEW);
  expect(await counts(OTHER)).toEqual({ counts: [['👍', 1]], mine: ['👍'] });
});
