/**
 * Every query of the channels' request paths is answered through an index (on MongoDB too when
 * MONGODB_URL is set): create, subscribe, the cap, access checks, publish with its idempotency
 * lookup and numbering, post pages (by time, and by number as ListMessages pages them), the
 * directory search, read markers (advance, chat list, move, removal), admin changes,
 * unsubscribe and deletion. The paths run for real over a recording store.
 */
import { ChannelRepository, channelIndexes } from '../../src/channels/channel.js';
import { ChannelGate } from '../../src/channels/channel-access.js';
import { ChannelMembers, channelMemberIndexes } from '../../src/channels/channel-members.js';
import { ChannelMembership } from '../../src/channels/channel-membership.js';
import { ChannelPosts, channelPostIndexes } from '../../src/channels/channel-posts.js';
import {
  ChannelReadMarkers,
  channelReadMarkerIndexes,
} from '../../src/channels/channel-read-markers.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { ChannelFollows } from '../../src/events/channel-follows.js';
import { recordingStore } from '../support/recording-store.js';
import { forEachStore } from '../support/stores-under-test.js';
import type { StoreUnderTest } from '../support/stores-under-test.js';

const owner = `0x${'a1'.repeat(20)}`;
const reader = `0x${'b2'.repeat(20)}`;

forEachStore('channel_hot_queries', (engine, open) => {
  let subject: StoreUnderTest;
  beforeAll(async () => {
    subject = await open();
  });
  afterAll(() => subject.dispose());

  test(`channel queries use an index on ${engine}`, async () => {
    const { store, queries } = recordingStore(subject.store);
    await store.ensureIndexes([
      ...channelIndexes,
      ...channelMemberIndexes,
      ...channelPostIndexes,
      ...channelReadMarkerIndexes,
    ]);
    const channels = new ChannelRepository(store);
    const members = new ChannelMembers(store);
    const posts = new ChannelPosts(store);
    const membership = new ChannelMembership(
      channels,
      members,
      new ChannelFollows(
        new MemorySharedState({ keyPrefix: 'hot:', logger: createLogger('silent') }),
      ),
      10,
    );
    const gate = new ChannelGate(channels, members);
    const markers = new ChannelReadMarkers(store);
    queries.length = 0;

    await membership.requireRoom(owner);
    await channels.insert({
      _id: 'c1',
      name: 'News',
      nameLower: 'news',
      description: '',
      avatarMediaId: '',
      ownerAddress: owner,
      isPublic: true,
      createdAt: new Date(),
      subscriberCount: 0,
      lastPostAt: null,
      lastSequence: 0,
    });
    await membership.join('c1', owner, 'owner');
    await membership.requireRoom(reader);
    await membership.join('c1', reader, 'subscriber');
    await gate.allowed('c1', owner, 'publish');
    const post = {
      channelId: 'c1',
      senderAddress: owner,
      clientMessageId: 'k1',
      kind: 'text',
      ciphertext: new Uint8Array([1]),
      mediaId: '',
      durationMs: 0,
    };
    await posts.append(post);
    await posts.append(post);
    await channels.recordPost('c1', 1, new Date());
    const first = await posts.page('c1', 1, undefined);
    await posts.page('c1', 1, {
      sortValue: first.items[0]!.sentAt.getTime(),
      id: first.items[0]!._id,
    });
    const byNumber = await posts.history('c1', 'channel:c1', {
      pageSize: 1,
      beforeCursor: '',
      afterCursor: '',
    });
    await posts.history('c1', 'channel:c1', {
      pageSize: 1,
      beforeCursor: '',
      afterCursor: byNumber.afterCursor,
    });
    await posts.newest('c1');
    await markers.advance('c1', reader, 1, first.items[0]!._id);
    await markers.advance('c1', reader, 1, first.items[0]!._id);
    await markers.find('c1', reader);
    await markers.among(reader, ['c1']);
    await markers.move(reader, owner);
    await markers.removeAddress(owner);
    await markers.removeChannel('c1');
    await channels.directory('ew', 10, undefined);
    await channels.directory('', 10, { sortValue: 1, id: 'c0' });
    await members.rolesAmong(reader, ['c1']);
    await members.ofAddress(reader);
    await channels.findMany(['c1']);
    await membership.promote('c1', reader);
    await members.admins('c1');
    await membership.demote('c1', reader);
    await membership.leave('c1', reader, 'subscriber');
    await membership.removeChannel((await channels.find('c1'))!, (channelId) =>
      posts.removeChannel(channelId),
    );

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
    expect(planned.length).toBeGreaterThan(20);
    expect(
      planned
        .filter(({ plan }) => plan.stage !== 'IXSCAN')
        .map(
          ({ collection, method, filter }) => `${collection}.${method} ${JSON.stringify(filter)}`,
        ),
    ).toEqual([]);
  });
});
