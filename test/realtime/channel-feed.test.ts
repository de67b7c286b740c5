/**
 * One connection's channel feed against the real post stream (in-process shared state): live
 * posts go out in number order, a jump is filled from the kept posts or reported as
 * `channel.resync_required`, duplicates are skipped, and `channels.resume` replays only what
 * came before the first live post.
 */
import { ChannelFeed } from '../../src/realtime/channel-feed.js';
import type { FrameSink } from '../../src/realtime/client-connection.js';
import { ChannelPostStream, channelPostFrame } from '../../src/events/channel-post-stream.js';
import type { StreamedPost } from '../../src/events/channel-post-stream.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';

const CHANNEL = 'c1';
let posts: ChannelPostStream;
let sent: { type: string; sequence?: number; channel_id?: string }[];
let feed: ChannelFeed;

beforeEach(() => {
  posts = new ChannelPostStream(
    new MemorySharedState({ keyPrefix: 'feed:', logger: createLogger('silent') }),
    { retainCount: 100, retentionMs: 60_000 },
  );
  sent = [];
  const sink: FrameSink = {
    send: (frame) => (sent.push(JSON.parse(frame)), true),
    sendPaced: async (frame) => (sent.push(JSON.parse(frame)), true),
    dropSlowConsumer: () => undefined,
  };
  feed = new ChannelFeed('0xabc', sink, posts, { delivered: () => undefined });
  feed.follow(CHANNEL);
});

const frameOf = (sequence: number) => channelPostFrame(CHANNEL, sequence, { sequence });
const live = (sequence: number): StreamedPost => ({
  channelId: CHANNEL,
  log: 'posts',
  sequence,
  publishedAt: Date.now(),
  frame: frameOf(sequence),
});
const keep = async (...sequences: number[]) => {
  for (const sequence of sequences) await posts.publish(CHANNEL, sequence, frameOf(sequence));
};
const settled = () => new Promise((resolve) => setTimeout(resolve, 20));

it('fills a jump from the kept posts and skips what was sent', async () => {
  await keep(1, 2, 3);
  feed.deliver(live(1));
  feed.deliver(live(3));
  await settled();
  feed.deliver(live(2));
  feed.deliver(live(3));
  expect(sent.map((frame) => frame.sequence)).toEqual([1, 2, 3]);
});

it('reports a jump it cannot fill, then goes on', async () => {
  feed.deliver(live(1));
  feed.deliver(live(4));
  await settled();
  expect(sent).toEqual([
    expect.objectContaining({ sequence: 1 }),
    { type: 'channel.resync_required', channel_id: CHANNEL, sequence: 3 },
    expect.objectContaining({ sequence: 4 }),
  ]);
});

it('resume replays up to the first live post only, holding live posts meanwhile', async () => {
  await keep(1, 2, 3, 4, 5);
  feed.deliver(live(4));
  const resumed = feed.resume(
    new Map([
      [CHANNEL, 1],
      ['not-followed', 0],
    ]),
  );
  feed.deliver(live(5));
  await resumed;
  await settled();
  expect(sent.map((frame) => frame.sequence)).toEqual([4, 2, 3, 5]);
  await feed.resume(new Map([[CHANNEL, 0]]));
  expect(sent).toHaveLength(4);
});

it('an unfollowed channel delivers nothing', () => {
  feed.unfollow(CHANNEL);
  feed.deliver(live(1));
  expect(sent).toEqual([]);
});

it('fills a second jump once the first fill is done and its queue let go of', async () => {
  await keep(1, 2, 3, 4, 5);
  feed.deliver(live(1));
  feed.deliver(live(3));
  await settled();
  feed.deliver(live(5));
  await settled();
  expect(sent.map((frame) => frame.sequence)).toEqual([1, 2, 3, 4, 5]);
});

it('following again after following nothing starts from the next live post', () => {
  feed.unfollow(CHANNEL);
  expect(feed.channels.size).toBe(0);
  feed.follow(CHANNEL);
  feed.deliver(live(7));
  feed.deliver(live(8));
  expect(sent.map((frame) => frame.sequence)).toEqual([7, 8]);
  expect([...feed.channels]).toEqual([CHANNEL]);
});

it('feeds that follow nothing share no channels with each other', () => {
  const other = new ChannelFeed(
    '0xdef',
    { send: () => true, sendPaced: async () => true, dropSlowConsumer: () => undefined },
    posts,
    { delivered: () => undefined },
  );
  feed.unfollow(CHANNEL);
  feed.follow('c2');
  expect(other.channels.size).toBe(0);
  other.follow('c3');
  expect([...feed.channels]).toEqual(['c2']);
});

describe('catching up after the pod’s subscription to the topic came back', () => {
  const latestNow = () => posts.latestOfLogs(CHANNEL);

  it('sends the posts published after the last one sent, then goes on live', async () => {
    await keep(1, 2, 3, 4);
    feed.deliver(live(1));
    feed.catchUp(CHANNEL, latestNow(), { posts: 1, changes: 0 });
    feed.deliver(live(5));
    await settled();
    expect(sent.map((frame) => frame.sequence)).toEqual([1, 2, 3, 4, 5]);
  });

  it('a connection sent no post yet gets those after the last number the pod knew of, and a later resume stops before them', async () => {
    await keep(1, 2, 3, 4);
    feed.catchUp(CHANNEL, latestNow(), { posts: 2, changes: 0 });
    await settled();
    expect(sent.map((frame) => frame.sequence)).toEqual([3, 4]);
    await feed.resume(new Map([[CHANNEL, 0]]));
    expect(sent.map((frame) => frame.sequence)).toEqual([3, 4, 1, 2]);
  });

  it('sends the changes missed too, after the posts', async () => {
    await keep(1);
    await posts.publish(CHANNEL, 1, JSON.stringify({ change_sequence: 1 }), 'changes');
    feed.catchUp(CHANNEL, latestNow(), { posts: 0, changes: 0 });
    await settled();
    expect(sent).toEqual([expect.objectContaining({ sequence: 1 }), { change_sequence: 1 }]);
  });

  it('nothing missed sends nothing', async () => {
    await keep(1, 2);
    feed.deliver(live(2));
    feed.catchUp(CHANNEL, latestNow(), { posts: 2, changes: 0 });
    await settled();
    expect(sent.map((frame) => frame.sequence)).toEqual([2]);
  });

  it('when the pod knew of no number, a connection sent no post yet is told to resync', async () => {
    await keep(1, 2);
    feed.catchUp(CHANNEL, latestNow(), undefined);
    await settled();
    expect(sent).toEqual([{ type: 'channel.resync_required', channel_id: CHANNEL, sequence: 2 }]);
  });

  it('when the latest numbers cannot be read, the client is told to resync, never left silent', async () => {
    feed.deliver(live(3));
    feed.catchUp(CHANNEL, Promise.reject(new Error('Redis away')), { posts: 3, changes: 1 });
    await settled();
    expect(sent.slice(1)).toEqual([
      { type: 'channel.resync_required', channel_id: CHANNEL, sequence: 3, reason: 'unavailable' },
      {
        type: 'channel.resync_required',
        channel_id: CHANNEL,
        change_sequence: 1,
        reason: 'unavailable',
      },
    ]);
  });

  it('a channel no longer followed is not caught up', async () => {
    await keep(1);
    feed.unfollow(CHANNEL);
    feed.catchUp(CHANNEL, latestNow(), { posts: 0, changes: 0 });
    await settled();
    expect(sent).toEqual([]);
  });
});
