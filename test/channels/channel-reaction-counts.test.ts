/**
 * A channel post with reactions from 10,000 distinct readers, added through the channels
 * area's side of messaging's port (the path of `POST /api/v1/messages/react`) on the embedded
 * store: its counts are exact, and a reader's history page returns them with the post from a
 * fixed number of store reads (the counts live on the post: nothing is counted per reader at
 * read time), never a scan of the 10,000 reaction records.
 */
import { randomBytes } from 'node:crypto';
import type { AccountRepository } from '../../src/accounts/account-repository.js';
import { createChannelsArea } from '../../src/channels/channels-area.js';
import { ChannelRepository } from '../../src/channels/channel.js';
import { ChannelMembers } from '../../src/channels/channel-members.js';
import { CHANNEL_POST_REACTIONS } from '../../src/channels/channel-reactions.js';
import { ChannelFollows } from '../../src/events/channel-follows.js';
import { ChannelPostStream } from '../../src/events/channel-post-stream.js';
import { HeldMedia } from '../../src/media/held-media.js';
import { MediaItems } from '../../src/media/media-items.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { PushQueue } from '../../src/push/delivery/push-queue.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import { recordingStore } from '../support/recording-store.js';
import { openEmbeddedStore } from '../support/stores-under-test.js';
import { ADMIT_ALL } from '../support/admit-all.js';

const READERS = 10_000;
const KEYS = ['👍', '❤️', '😂', '🎉', '🔥'];
const OWNER = `0x${'1'.repeat(40)}`;
const address = () => `0x${randomBytes(20).toString('hex')}`;

it(`counts ${READERS} readers' reactions on a post and reads them with it in a fixed number of reads`, async () => {
  const underTest = await openEmbeddedStore();
  const logger = createLogger('silent');
  const state = new MemorySharedState({ keyPrefix: 'test:', logger });
  try {
    const { store, queries } = recordingStore(underTest.store);
    const area = await createChannelsArea({
      settings: { maxSubscriptions: 100, replayPosts: 100, replayRetentionMs: 60_000 },
      store,
      accounts: {} as AccountRepository,
      media: new HeldMedia(new MediaItems(underTest.store)),
      posts: new ChannelPostStream(state, { retainCount: 100, retentionMs: 60_000 }),
      follows: new ChannelFollows(state),
      wakeUps: new WakeUps(new PushQueue(state), logger, new OutageLog(logger)),
      admission: ADMIT_ALL,
      logger,
      outages: new OutageLog(logger),
    });
    await new ChannelRepository(underTest.store).insert({
      _id: 'busy',
      name: 'busy',
      nameLower: 'busy',
      description: '',
      avatarMediaId: '',
      ownerAddress: OWNER,
      isPublic: true,
      createdAt: new Date(),
      subscriberCount: 0,
      lastPostAt: null,
      lastSequence: 0,
    });
    await new ChannelMembers(underTest.store).add({
      channelId: 'busy',
      address: OWNER,
      role: 'owner',
      since: new Date(),
    });
    const { message: post } = await area.conversations.publish(OWNER, 'busy', {
      clientMessageId: 'busy-post',
      kind: 'text',
      ciphertext: Buffer.from('post'),
      mediaId: '',
      durationMs: 0,
    });
    const readers = Array.from({ length: READERS }, address);
    let next = 0;
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < READERS) {
          const index = next++;
          await area.conversations.react(readers[index]!, 'busy', post.id, KEYS[index % 5]!, true);
        }
      }),
    );

    queries.length = 0;
    const page = await area.conversations.history(readers[7]!, 'busy', {
      pageSize: 1,
      beforeCursor: '',
      afterCursor: '',
    });
    const [read] = page.messages;
    // Equal counts are ordered by key.
    expect(read!.reactionCounts.map(({ key, count }) => [key, count])).toEqual(
      [...KEYS].sort().map((key) => [key, READERS / KEYS.length]),
    );
    expect(read!.myReactionKeys).toEqual([KEYS[7 % 5]]);
    // The channel, the reader's role, the page of posts, the reader's own keys: a fixed number
    // of reads, one of them on the reaction records (by id, the reader's own).
    expect(queries.length).toBeLessThanOrEqual(5);
    const onReactions = queries.filter((query) => query.collection === CHANNEL_POST_REACTIONS);
    expect(onReactions).toHaveLength(1);
    expect(onReactions[0]!.filter).toEqual({ _id: { $in: [`${post.id}|${readers[7]}`] } });
    expect(await underTest.store.collection(CHANNEL_POST_REACTIONS).countDocuments({})).toBe(
      READERS,
    );
  } finally {
    await state.close();
    await underTest.dispose();
  }
}, 120_000);
