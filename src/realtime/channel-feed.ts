/**
 * One WebSocket connection's channel posts: which channels it follows, the last post number it
 * was sent per channel, and the rules that make channel delivery gap-free and duplicate-free
 * (docs/realtime.md, "Channels").
 *
 * - A channel's first live post is sent as it comes and fixes the position; after that only the
 *   next number goes out, one already sent is skipped, and a jump is filled from the channel's
 *   kept posts (or, when they are gone, the client is told `channel.resync_required`).
 * - `channels.resume` (once per channel and connection) replays what the client missed: from
 *   its last seen number up to the channel's latest, or up to the first post this connection
 *   has already sent live. Live posts wait meanwhile, so nothing overtakes the replay.
 */
import type { DeliveryCounter, FrameSink } from './client-connection.js';
import type { ChannelPostStream, StreamedPost } from '../events/channel-post-stream.js';
import { UNNUMBERED } from '../events/channel-post-stream.js';
import { controlFrame } from '../events/event-envelope.js';

/** Posts read from shared state per round trip during a replay. */
const REPLAY_BATCH = 100;
/** Live posts held back during a replay beyond which the client is too far behind to keep. */
const MAX_HELD_POSTS = 10_000;

interface Position {
  /** The number of the first post sent live, if any (a replay stops before it). */
  readonly firstLive: number | undefined;
  /** The last number sent. */
  last: number;
}

export class ChannelFeed {
  private readonly following = new Set<string>();
  private readonly positions = new Map<string, Position>();
  private readonly resumed = new Set<string>();
  /** Live posts that arrived during a replay or a gap fill. */
  private held: StreamedPost[] | null = null;
  /** Replays queued or running; live posts are held while there is one. */
  private replays = 0;
  private queue: Promise<void> = Promise.resolve();

  constructor(
    readonly address: string,
    private readonly sink: FrameSink,
    private readonly posts: ChannelPostStream,
    private readonly counter: DeliveryCounter,
  ) {}

  /** The channels whose posts this connection receives. */
  get channels(): ReadonlySet<string> {
    return this.following;
  }

  follow(channelId: string): void {
    this.following.add(channelId);
  }

  unfollow(channelId: string): void {
    this.following.delete(channelId);
    this.positions.delete(channelId);
  }

  deliver(post: StreamedPost): void {
    if (!this.following.has(post.channelId)) return;
    // An ephemeral event has no place in the numbering: it goes out as it comes, even during a replay.
    if (post.sequence === UNNUMBERED) return this.send(post.frame, 'ephemeral');
    if (this.held) {
      if (this.held.length >= MAX_HELD_POSTS) this.sink.dropSlowConsumer();
      else this.held.push(post);
      return;
    }
    const position = this.positions.get(post.channelId);
    if (!position) {
      this.positions.set(post.channelId, { firstLive: post.sequence, last: post.sequence });
      this.send(post.frame, 'durable');
      return;
    }
    if (post.sequence <= position.last) return;
    if (post.sequence === position.last + 1) {
      position.last = post.sequence;
      this.send(post.frame, 'durable');
      return;
    }
    this.held = [post];
    void this.whileHolding(() => this.replay(post.channelId, position, post.sequence - 1));
  }

  /**
   * Replays, per followed channel listed, the posts after the client's last seen number. Channels
   * not followed, or already resumed on this connection, are skipped.
   */
  resume(lastSeen: ReadonlyMap<string, number>): Promise<void> {
    return this.whileHolding(async () => {
      for (const [channelId, seen] of lastSeen) {
        if (!this.following.has(channelId) || this.resumed.has(channelId)) continue;
        this.resumed.add(channelId);
        const live = this.positions.get(channelId);
        const upTo =
          live?.firstLive !== undefined ? live.firstLive - 1 : await this.posts.latest(channelId);
        const position: Position = live ?? { firstLive: undefined, last: upTo };
        this.positions.set(channelId, position);
        if (seen > upTo) {
          if (!live) this.sendResync(channelId, upTo);
          continue;
        }
        const keepLast = position.last;
        position.last = seen;
        await this.replay(channelId, position, upTo);
        position.last = Math.max(keepLast, position.last);
      }
    });
  }

  /** Sends the kept posts after `position.last` up to `upTo` at the client's pace, or a resync. */
  private async replay(channelId: string, position: Position, upTo: number): Promise<void> {
    while (position.last < upTo) {
      const to = Math.min(position.last + REPLAY_BATCH, upTo);
      const frames = await this.posts.frames(channelId, position.last + 1, to);
      if (!frames) {
        this.sendResync(channelId, upTo);
        position.last = upTo;
        return;
      }
      for (const frame of frames) if (!(await this.sink.sendPaced(frame))) return;
      this.counter.delivered('replayed', frames.length);
      position.last = to;
    }
  }

  /**
   * Runs a replay with live posts held back; replays run one after the other, and the held
   * posts go through (in order, by the rules of `deliver`) once the last one is done.
   */
  private whileHolding(replay: () => Promise<void>): Promise<void> {
    this.held ??= [];
    this.replays++;
    const run = this.queue
      .then(replay)
      .catch(() => this.skipUnreadable())
      .finally(() => {
        if (--this.replays > 0) return;
        const held = this.held ?? [];
        this.held = null;
        for (const post of held) this.deliver(post);
      });
    this.queue = run;
    return run;
  }

  /** Shared state is away: what cannot be read now is for the client to re-read over REST. */
  private skipUnreadable(): void {
    for (const post of this.held ?? []) {
      const position = this.positions.get(post.channelId);
      if (position && position.last < post.sequence - 1) {
        this.sendResync(post.channelId, post.sequence - 1);
        position.last = post.sequence - 1;
      }
    }
  }

  private send(frame: string, kind: 'durable' | 'ephemeral'): void {
    if (this.sink.send(frame)) this.counter.delivered(kind, 1);
  }

  private sendResync(channelId: string, sequence: number): void {
    this.counter.resync?.('channel_gap');
    this.sink.send(controlFrame('channel.resync_required', { channel_id: channelId, sequence }));
  }
}
