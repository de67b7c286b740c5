/**
 * Channel posts and their changes on their way to subscribers (docs/realtime.md, "Channels").
 * A post is stored once by the channels area; this stream carries it to the ws pods without a
 * per-subscriber cost: one publish on the channel's topic, heard by each ws pod that holds a
 * connection of a follower, plus one copy kept for catch-up under the channel's own sequence
 * number, so a reconnecting client replays exactly the numbers it missed.
 *
 * A channel has two such logs, each numbered 1, 2, 3, ... by the store: its posts (`sequence`)
 * and the changes to its posts (`change_sequence`: edits, deletions, reaction counts, pins;
 * channel-change-log.ts). Both are kept, published and replayed the same way; a change's topic
 * message starts with `c`, so a post's stays as it always was.
 *
 * A log's latest number is kept as a maximum: api pods may publish out of order, and a number
 * never goes down. Keys share the `{chan:<id>}` hash tag (one Redis Cluster slot per channel).
 */
import { randomUUID } from 'node:crypto';
import type { JsonValue } from '@bufbuild/protobuf';
import { defineScript } from '../platform/shared-state/shared-state.js';
import type { SharedState, Unsubscribe } from '../platform/shared-state/shared-state.js';
import type { EphemeralEventType } from './event-envelope.js';

export interface ChannelPostStreamSettings {
  /** Posts kept per channel for catch-up (CHANNEL_REPLAY_POSTS). */
  readonly retainCount: number;
  /** How long a post stays replayable (CHANNEL_REPLAY_RETENTION). */
  readonly retentionMs: number;
}

/** The channel's two numbered logs: its posts, and the changes to its posts. */
export type ChannelLog = 'posts' | 'changes';

/** A number per log of a channel (latest numbers, numbers heard). */
export type LogNumbers = Record<ChannelLog, number>;

/** A post, a post's change or an unnumbered channel event as a ws pod hears it on the channel's topic. */
export interface StreamedPost {
  readonly channelId: string;
  readonly log: ChannelLog;
  /** The number in its log; `UNNUMBERED` for an ephemeral event (publishEphemeral). */
  readonly sequence: number;
  /** When the api pod published it (epoch ms), for the fan-out latency metric. */
  readonly publishedAt: number;
  /** The `channel.post` frame, sent to each connection as it is. */
  readonly frame: string;
}

/** The `sequence` of an ephemeral channel event: never a post number (those start at 1). */
export const UNNUMBERED = 0;

/** The latest number outlives the posts, so a quiet channel still tells a client what it missed. */
const LATEST_TTL_MS = 30 * 24 * 60 * 60 * 1000;

/** What marks a log's numbers on the topic: nothing for posts (as before changes had a log), `c` for changes. */
const TOPIC_MARK: Record<ChannelLog, string> = { posts: '', changes: 'c' };

const keysOf = (channelId: string, log: ChannelLog = 'posts') => {
  const tag = `{chan:${channelId}}`;
  return log === 'posts'
    ? { latest: `${tag}:latest`, prefix: `${tag}:p:`, topic: `${tag}:topic` }
    : { latest: `${tag}:clatest`, prefix: `${tag}:c:`, topic: `${tag}:topic` };
};

/**
 * KEYS: latest, entry prefix, topic. ARGV: frame, sequence, retention ms, retain count, now ms,
 * latest TTL ms, the log's topic mark. Keeps the frame, raises the latest number, forgets the
 * entry that falls out of the window and publishes `<mark><sequence>|<now>|<frame>`.
 */
const appendEntry = defineScript<
  [
    frame: string,
    sequence: number,
    retentionMs: number,
    retainCount: number,
    nowMs: number,
    latestTtlMs: number,
    mark: string,
  ],
  number
>({
  name: 'channel-log-append',
  keys: 3,
  lua: `local seq = tonumber(ARGV[2])
redis.call('SET', KEYS[2] .. seq, ARGV[1], 'PX', ARGV[3])
local latest = tonumber(redis.call('GET', KEYS[1]) or '0')
if seq > latest then latest = seq end
redis.call('SET', KEYS[1], latest, 'PX', ARGV[6])
local dropped = seq - tonumber(ARGV[4])
if dropped > 0 then redis.call('DEL', KEYS[2] .. dropped) end
redis.call(PUBLISH, KEYS[3], ARGV[7] .. seq .. '|' .. ARGV[5] .. '|' .. ARGV[1])
return latest`,
  local: (
    state,
    [latestKey, prefix, topic],
    [frame, sequence, retentionMs, retainCount, nowMs, latestTtlMs, mark],
  ) => {
    const seq = Number(sequence);
    state.set(prefix! + seq, frame!, { ttlMs: Number(retentionMs) });
    const latest = Math.max(seq, Number(state.get(latestKey!) ?? '0'));
    state.set(latestKey!, String(latest), { ttlMs: Number(latestTtlMs) });
    const dropped = seq - Number(retainCount);
    if (dropped > 0) state.delete(prefix! + dropped);
    state.publish(topic!, `${mark}${seq}|${nowMs}|${frame}`);
    return latest;
  },
});

/**
 * KEYS: the kept entry's key. ARGV: its new frame. Replaces the frame kept for catch-up (of an
 * edited or deleted post), keeping its TTL; an entry no longer kept is left alone.
 */
const replaceEntry = defineScript<[frame: string], number>({
  name: 'channel-post-replace',
  keys: 1,
  lua: `if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 1`,
  local: (state, [key], [frame]) => {
    if (state.get(key!) === null) return 0;
    state.set(key!, frame!, { keepTtl: true });
    return 1;
  },
});

/** The `channel.post` frame: the post exactly as REST prints it, with its channel and number outside `data`. */
export function channelPostFrame(
  channelId: string,
  sequence: number,
  post: JsonValue,
  at = new Date(),
): string {
  return JSON.stringify({
    type: 'channel.post',
    channel_id: channelId,
    sequence,
    id: randomUUID(),
    at: at.toISOString(),
    data: { post },
  });
}

/**
 * The `channel.post_updated` frame: change number `changeSequence` of the channel (its change
 * log, not its posts' numbers), what changed and the post as it is now.
 */
export function channelChangeFrame(
  channelId: string,
  changeSequence: number,
  change: string,
  post: JsonValue,
  at = new Date(),
): string {
  return JSON.stringify({
    type: 'channel.post_updated',
    channel_id: channelId,
    change_sequence: changeSequence,
    id: randomUUID(),
    at: at.toISOString(),
    data: { change, post },
  });
}

/** An ephemeral channel event's frame: the user events' envelope with the channel's id. */
export function channelEventFrame(
  channelId: string,
  type: EphemeralEventType,
  data: unknown,
  at = new Date(),
): string {
  return JSON.stringify({
    type,
    channel_id: channelId,
    id: randomUUID(),
    at: at.toISOString(),
    data,
  });
}

export class ChannelPostStream {
  constructor(
    private readonly state: SharedState,
    private readonly settings: ChannelPostStreamSettings,
  ) {}

  /**
   * Keeps the post (or, in the `changes` log, the change) for catch-up and publishes it to the
   * ws pods of the channel's followers.
   */
  async publish(
    channelId: string,
    sequence: number,
    frame: string,
    log: ChannelLog = 'posts',
  ): Promise<void> {
    const keys = keysOf(channelId, log);
    await this.state.run(
      appendEntry,
      [keys.latest, keys.prefix, keys.topic],
      [
        frame,
        sequence,
        this.settings.retentionMs,
        this.settings.retainCount,
        Date.now(),
        LATEST_TTL_MS,
        TOPIC_MARK[log],
      ],
    );
  }

  /**
   * An ephemeral event for the channel's followers connected at this moment (a poll's new
   * results): one publish on the channel's topic, not kept, not numbered, never replayed.
   */
  async publishEphemeral(
    channelId: string,
    type: EphemeralEventType,
    data: unknown,
  ): Promise<void> {
    await this.state.publish(
      keysOf(channelId).topic,
      `${UNNUMBERED}|${Date.now()}|${channelEventFrame(channelId, type, data)}`,
    );
  }

  /**
   * Replaces the frame kept for catch-up of entry `sequence` of the log (a post, or a change of
   * a post, whose content was edited or deleted since), so that `channels.resume` replays the
   * post as it is now; nothing is published.
   */
  async replaceKept(
    channelId: string,
    sequence: number,
    frame: string,
    log: ChannelLog = 'posts',
  ): Promise<void> {
    await this.state.run(replaceEntry, [keysOf(channelId, log).prefix + sequence], [frame]);
  }

  /**
   * Hears the channel's topic. `onResubscribed`: the subscription was lost and is back; what
   * was published meanwhile never arrives, and is read with `latestOfLogs` and `frames`.
   */
  subscribe(
    channelId: string,
    handler: (post: StreamedPost) => void,
    onResubscribed?: () => void,
  ): Promise<Unsubscribe> {
    return this.state.subscribe(
      keysOf(channelId).topic,
      (message) => {
        const first = message.indexOf('|');
        const second = message.indexOf('|', first + 1);
        const log: ChannelLog = message.startsWith(TOPIC_MARK.changes) ? 'changes' : 'posts';
        handler({
          channelId,
          log,
          sequence: Number(message.slice(TOPIC_MARK[log].length, first)),
          publishedAt: Number(message.slice(first + 1, second)),
          frame: message.slice(second + 1),
        });
      },
      onResubscribed,
    );
  }

  /** The log's latest number that shared state knows of (0 when none, or when Redis lost it). */
  async latest(channelId: string, log: ChannelLog = 'posts'): Promise<number> {
    return Number((await this.state.get(keysOf(channelId, log).latest)) ?? '0');
  }

  /** Both logs' latest numbers in one round trip (the keys share the channel's slot). */
  async latestOfLogs(channelId: string): Promise<LogNumbers> {
    const [posts, changes] = await this.state.getMany([
      keysOf(channelId, 'posts').latest,
      keysOf(channelId, 'changes').latest,
    ]);
    return { posts: Number(posts ?? '0'), changes: Number(changes ?? '0') };
  }

  /** The frames of the log's entries `from`..`to` (inclusive) in order; null when any is no longer kept. */
  async frames(
    channelId: string,
    from: number,
    to: number,
    log: ChannelLog = 'posts',
  ): Promise<string[] | null> {
    const { prefix } = keysOf(channelId, log);
    const frames = await this.state.getMany(
      Array.from({ length: to - from + 1 }, (_, i) => prefix + (from + i)),
    );
    return frames.some((frame) => frame === null) ? null : (frames as string[]);
  }
}
