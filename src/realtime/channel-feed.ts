/**
 * One WebSocket connection's channel posts and their changes: which channels it follows, the
 * last number it was sent per channel and log (posts, and changes to posts: two numberings,
 * channel-post-stream.ts), and the rules that make channel delivery gap-free and
 * duplicate-free (docs/realtime.md, "Channels"). Both logs follow the same rules, each with its
 * own numbers:
 *
 * - A channel's first live post is sent as it comes and fixes the position; after that only the
 *   next number goes out, one already sent is skipped, and a jump is filled from the channel's
 *   kept posts (or, when they are gone, the client is told `channel.resync_required`).
 * - `channels.resume` (once per channel and connection) replays what the client missed: from
 *   its last seen number up to the channel's latest, or up to the first post this connection
 *   has already sent live. Live posts wait meanwhile, so nothing overtakes the replay.
 * - When the pod's subscription to a channel's topic comes back after it lost Redis
 *   (`catchUp`), the connection is sent at once what was published meanwhile: those entries
 *   never arrive live, and the next one, which would reveal the jump, may not come for a long
 *   time. What cannot be read is reported as `channel.resync_required`, never left silent.
 */
import type { DeliveryCounter, FrameSink } from './client-connection.js';
import type {
  ChannelLog,
  ChannelPostStream,
  LogNumbers,
  StreamedPost,
} from '../events/channel-post-stream.js';
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

/** The resync frame's field that names the number to continue from, per log. */
const RESYNC_FIELD: Record<ChannelLog, string> = {
  posts: 'sequence',
  changes: 'change_sequence',
};

/** Posts first: a change then names a post the client has. */
const LOGS: readonly ChannelLog[] = ['posts', 'changes'];

/** A position's key: a channel's log. */
const slotOf = (channelId: string, log: ChannelLog) => `${log}:${channelId}`;

/** What a feed that follows nothing reports: one shared empty set. */
const NO_CHANNELS: ReadonlySet<string> = new Set();

/**
 * Most connections follow no channel and never resume one: their feed makes its sets, map and
 * replay queue on first use (an empty set or map is a hash table of about 200 bytes).
 */
export class ChannelFeed {
  private following: Set<string> | undefined;
  private positions: Map<string, Position> | undefined;
  /** The slots `resume` has replayed on this connection. */
  private resumed: Set<string> | undefined;
  /** Live posts that arrived during a replay or a gap fill. */
  private held: StreamedPost[] | null = null;
  /** Replays queued or running; live posts are held while there is one. */
  private replays = 0;
  /** The last replay queued, until the queue is empty. */
  private queue: Promise<void> | undefined;

  constructor(
    readonly address: string,
    private readonly sink: FrameSink,
    private readonly posts: ChannelPostStream,
    private readonly counter: DeliveryCounter,
  ) {}

  /** The channels whose posts this connection receives. */
  get channels(): ReadonlySet<string> {
    return this.following ?? NO_CHANNELS;
  }

  follow(channelId: string): void {
    (this.following ??= new Set()).add(channelId);
  }

  unfollow(channelId: string): void {
    this.following?.delete(channelId);
    if (this.following?.size === 0) this.following = undefined;
    for (const log of ['posts', 'changes'] as const) this.positions?.delete(slotOf(channelId, log));
    if (this.positions?.size === 0) this.positions = undefined;
  }

  deliver(post: StreamedPost): void {
    if (!this.following?.has(post.channelId)) return;
    // An ephemeral event has no place in the numbering: it goes out as it comes, even during a replay.
    if (post.sequence === UNNUMBERED) return this.send(post.frame, 'ephemeral');
    if (this.held) {
      if (this.held.length >= MAX_HELD_POSTS) this.sink.dropSlowConsumer();
      else this.held.push(post);
      return;
    }
    const slot = slotOf(post.channelId, post.log);
    const position = this.positions?.get(slot);
    if (!position) {
      (this.positions ??= new Map()).set(slot, { firstLive: post.sequence, last: post.sequence });
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
    void this.whileHolding(() =>
      this.replay(post.channelId, post.log, position, post.sequence - 1),
    );
  }

  /**
   * Replays, per followed channel listed, the log's entries after the client's last seen number
   * (posts, then, in a second call, their changes: a change then names a post the client has).
   * Channels not followed, or whose log was already resumed on this connection, are skipped.
   */
  resume(lastSeen: ReadonlyMap<string, number>, log: ChannelLog = 'posts'): Promise<void> {
    return this.whileHolding(async () => {
      for (const [channelId, seen] of lastSeen) {
        const slot = slotOf(channelId, log);
        if (!this.following?.has(channelId) || this.resumed?.has(slot)) continue;
        (this.resumed ??= new Set()).add(slot);
        const live = this.positions?.get(slot);
        const upTo =
          live?.firstLive !== undefined
            ? live.firstLive - 1
            : await this.posts.latest(channelId, log);
        const position: Position = live ?? { firstLive: undefined, last: upTo };
        (this.positions ??= new Map()).set(slot, position);
        if (seen > upTo) {
          if (!live) this.sendResync(channelId, log, upTo);
          continue;
        }
        const keepLast = position.last;
        position.last = seen;
        await this.replay(channelId, log, position, upTo);
        position.last = Math.max(keepLast, position.last);
      }
    });
  }

  /**
   * The pod's subscription to the channel's topic is back after a loss: sends, per log, the
   * entries published after the last one sent (or, when none was sent on this connection, after
   * `heardBefore`: the last number the pod had heard or read before the loss) up to `latest`.
   * When the latest numbers cannot be read, or the pod knew of no number, the client is told to
   * resync the channel.
   *
   * @param latest the logs' latest numbers, read once per topic for all its connections
   * @param heardBefore the pod's numbers for the topic at the loss; undefined when it had none
   */
  catchUp(
    channelId: string,
    latest: Promise<LogNumbers>,
    heardBefore: LogNumbers | undefined,
  ): void {
    if (!this.following?.has(channelId)) return;
    void this.whileHolding(async () => {
      let newest: LogNumbers;
      try {
        newest = await latest;
      } catch {
        // Shared state is away: the client re-reads the channel over REST; later posts follow live.
        for (const log of LOGS) {
          const last = this.positions?.get(slotOf(channelId, log))?.last ?? heardBefore?.[log];
          this.sendResync(channelId, log, last ?? 0, 'unavailable');
        }
        return;
      }
      for (const log of LOGS) {
        // The channel may have been unfollowed while an earlier replay ran.
        if (!this.following?.has(channelId)) return;
        const position = this.positionForCatchUp(channelId, log, newest[log], heardBefore);
        if (position) await this.replayOrResync(channelId, log, position, newest[log]);
      }
    });
  }

  /**
   * Where a catch-up of the log starts: after the last entry sent or, when none was sent on this
   * connection, after the last the pod knew of (the missed ones then count as sent live, so a
   * later `channels.resume` stops before them). Undefined when there is nothing to send; a
   * connection with no position whose pod knew of no number is told to resync instead.
   */
  private positionForCatchUp(
    channelId: string,
    log: ChannelLog,
    latest: number,
    heardBefore: LogNumbers | undefined,
  ): Position | undefined {
    const slot = slotOf(channelId, log);
    const position = this.positions?.get(slot);
    if (position) return position;
    if (latest === 0) return undefined;
    if (heardBefore === undefined) {
      this.sendResync(channelId, log, latest);
      return undefined;
    }
    if (latest <= heardBefore[log]) return undefined;
    const missed: Position = { firstLive: heardBefore[log] + 1, last: heardBefore[log] };
    (this.positions ??= new Map()).set(slot, missed);
    return missed;
  }

  /** `replay`, with a read that fails (Redis away again) reported as a resync, not left silent. */
  private async replayOrResync(
    channelId: string,
    log: ChannelLog,
    position: Position,
    upTo: number,
  ): Promise<void> {
    try {
      await this.replay(channelId, log, position, upTo);
    } catch {
      this.sendResync(channelId, log, upTo);
      position.last = Math.max(position.last, upTo);
    }
  }

  /** Sends the kept entries after `position.last` up to `upTo` at the client's pace, or a resync. */
  private async replay(
    channelId: string,
    log: ChannelLog,
    position: Position,
    upTo: number,
  ): Promise<void> {
    while (position.last < upTo) {
      const to = Math.min(position.last + REPLAY_BATCH, upTo);
      const frames = await this.posts.frames(channelId, position.last + 1, to, log);
      if (!frames) {
        this.sendResync(channelId, log, upTo);
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
    const run = (this.queue ?? Promise.resolve())
      .then(replay)
      .catch(() => this.skipUnreadable())
      .finally(() => {
        if (--this.replays > 0) return;
        this.queue = undefined;
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
      const position = this.positions?.get(slotOf(post.channelId, post.log));
      if (position && position.last < post.sequence - 1) {
        this.sendResync(post.channelId, post.log, post.sequence - 1);
        position.last = post.sequence - 1;
      }
    }
  }

  private send(frame: string, kind: 'durable' | 'ephemeral'): void {
    if (this.sink.send(frame)) this.counter.delivered(kind, 1);
  }

  /**
   * The client re-reads the posts it shows (up to the number, for posts) and continues from it.
   * `unavailable`: what was missed could not be read (Redis away), so the number is the last
   * one this connection knows of, and the client re-reads the channel's newest posts.
   */
  private sendResync(
    channelId: string,
    log: ChannelLog,
    sequence: number,
    reason?: 'unavailable',
  ): void {
    this.counter.resync?.('channel_gap');
    this.sink.send(
      controlFrame('channel.resync_required', {
        channel_id: channelId,
        [RESYNC_FIELD[log]]: sequence,
        ...(reason && { reason }),
      }),
    );
  }
}
