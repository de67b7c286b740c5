/**
 * Channel posts on their way to subscribers (docs/realtime.md, "Channels"). A post is stored
 * once by the channels area; this stream carries it to the ws pods without a per-subscriber
 * cost: one publish on the channel's topic, heard by each ws pod that holds a connection of a
 * follower, plus one copy kept for catch-up under the channel's own sequence number, so a
 * reconnecting client replays exactly the numbers it missed.
 *
 * The channel's latest number is kept as a maximum: api pods may publish a channel's posts out
 * of order, and a number never goes down. Keys share the `{chan:<id>}` hash tag (one Redis
 * Cluster slot per channel).
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

/** A post (or an unnumbered channel event) as a ws pod hears it on the channel's topic. */
export interface StreamedPost {
  readonly channelId: string;
  /** The post's number; `UNNUMBERED` for an ephemeral event (publishEphemeral). */
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

const keysOf = (channelId: string) => {
  const tag = `{chan:${channelId}}`;
  return { latest: `${tag}:latest`, postPrefix: `${tag}:p:`, topic: `${tag}:topic` };
};

/**
 * KEYS: latest, post prefix, topic. ARGV: frame, sequence, retention ms, retain count, now ms,
 * latest TTL ms. Keeps the frame, raises the latest number, forgets the post that falls out of
 * the window and publishes `<sequence>|<now>|<frame>`.
 */
const appendPost = defineScript<
  [
    frame: string,
    sequence: number,
    retentionMs: number,
    retainCount: number,
    nowMs: number,
    latestTtlMs: number,
  ],
  number
>({
  name: 'channel-post-append',
  keys: 3,
  lua: `local seq = tonumber(ARGV[2])
redis.call('SET', KEYS[2] .. seq, ARGV[1], 'PX', ARGV[3])
local latest = tonumber(redis.call('GET', KEYS[1]) or '0')
if seq > latest then latest = seq end
redis.call('SET', KEYS[1], latest, 'PX', ARGV[6])
local dropped = seq - tonumber(ARGV[4])
if dropped > 0 then redis.call('DEL', KEYS[2] .. dropped) end
redis.call(PUBLISH, KEYS[3], seq .. '|' .. ARGV[5] .. '|' .. ARGV[1])
return latest`,
  local: (
    state,
    [latestKey, postPrefix, topic],
    [frame, sequence, retentionMs, retainCount, nowMs, latestTtlMs],
  ) => {
    const seq = Number(sequence);
    state.set(postPrefix! + seq, frame!, { ttlMs: Number(retentionMs) });
    const latest = Math.max(seq, Number(state.get(latestKey!) ?? '0'));
    state.set(latestKey!, String(latest), { ttlMs: Number(latestTtlMs) });
    const dropped = seq - Number(retainCount);
    if (dropped > 0) state.delete(postPrefix! + dropped);
    state.publish(topic!, `${seq}|${nowMs}|${frame}`);
    return latest;
  },
});

/**
 * KEYS: the kept post's key. ARGV: its new frame. Replaces the frame kept for catch-up (an
 * edited or deleted post), keeping its TTL; a post no longer kept is left alone.
 */
const replacePost = defineScript<[frame: string], number>({
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

  /** Keeps the post for catch-up and publishes it to the ws pods of the channel's followers. */
  async publish(channelId: string, sequence: number, frame: string): Promise<void> {
    const keys = keysOf(channelId);
    await this.state.run(
      appendPost,
      [keys.latest, keys.postPrefix, keys.topic],
      [
        frame,
        sequence,
        this.settings.retentionMs,
        this.settings.retainCount,
        Date.now(),
        LATEST_TTL_MS,
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
   * Replaces the frame kept for catch-up of post `sequence` (its content edited or deleted), so
   * that `channels.resume` replays the post as it is now; nothing is published.
   */
  async replaceKept(channelId: string, sequence: number, frame: string): Promise<void> {
    await this.state.run(replacePost, [keysOf(channelId).postPrefix + sequence], [frame]);
  }

  subscribe(channelId: string, handler: (post: StreamedPost) => void): Promise<Unsubscribe> {
    return this.state.subscribe(keysOf(channelId).topic, (message) => {
      const first = message.indexOf('|');
      const second = message.indexOf('|', first + 1);
      handler({
        channelId,
        sequence: Number(message.slice(0, first)),
        publishedAt: Number(message.slice(first + 1, second)),
        frame: message.slice(second + 1),
      });
    });
  }

  /** The channel's latest post number that shared state knows of (0 when none, or when Redis lost it). */
  async latest(channelId: string): Promise<number> {
    return Number((await this.state.get(keysOf(channelId).latest)) ?? '0');
  }

  /** The frames of posts `from`..`to` (inclusive) in order; null when any is no longer kept. */
  async frames(channelId: string, from: number, to: number): Promise<string[] | null> {
    const { postPrefix } = keysOf(channelId);
    const frames = await this.state.getMany(
      Array.from({ length: to - from + 1 }, (_, i) => postPrefix + (from + i)),
    );
    return frames.some((frame) => frame === null) ? null : (frames as string[]);
  }
}
