/**
 * One WebSocket connection's view of its user's event stream: what it has been sent, and the
 * rules that make delivery gap-free and duplicate-free.
 *
 * - Until `start` has sent the greeting (and, when resuming, the missed events), live events are
 *   held back, so nothing overtakes the replay.
 * - Replays are read in batches and written at the pace the client reads (`sendPaced`), so a
 *   long catch-up neither loads the whole backlog into memory nor trips the slow-consumer bound
 *   meant for live traffic.
 * - A durable event is sent only if it is the next number; one already sent is skipped, and a
 *   jump (a publish lost while the pod's Redis subscription was reconnecting) is filled from the
 *   replay log before going on. When it cannot be filled, or the stream was restarted, the
 *   client is told `resync_required` and re-reads its state over REST.
 * - When the pod's subscription comes back after it lost Redis (`catchUp`), the connection
 *   reads what was published meanwhile from the log at once: those events never arrive live,
 *   and the next event, which would reveal the jump, may not come for a long time.
 * - Ephemeral events go straight out.
 */
import { controlFrame } from '../events/event-envelope.js';
import type { ReplayCheck, StreamedEvent, UserEventStream } from '../events/user-event-stream.js';

/** Where the socket's frames go; both answer false once the connection is gone. */
export interface FrameSink {
  /** Live traffic: a client that lets it pile up is a slow consumer and is disconnected. */
  send(frame: string): boolean;
  /** Replay: waits while the client's queue is full. */
  sendPaced(frame: string): Promise<boolean>;
  /** Disconnects the client as a slow consumer. */
  dropSlowConsumer(): void;
}

export interface ResumePoint {
  readonly stream: string;
  readonly seq: number;
}

export interface DeliveryCounter {
  delivered(kind: 'durable' | 'ephemeral' | 'replayed', count: number): void;
  /** A `resync_required` (or `channel.resync_required`) went out: ws_resyncs_total. */
  resync?(reason: 'gap' | 'unavailable' | 'channel_gap'): void;
}

/** Events read from shared state per round trip during a replay. */
const REPLAY_BATCH = 100;
/** Live events held back during a replay beyond which the client is too far behind to keep. */
const MAX_HELD_EVENTS = 10_000;

export class ClientConnection {
  private stream = '';
  private lastSeq = 0;
  /** Live events that arrived while the connection was starting or filling a gap. */
  private held: StreamedEvent[] | null = [];
  /** A catch-up was asked for while the log was being read: another read follows that one. */
  private catchUpPending = false;

  constructor(
    readonly address: string,
    private readonly sink: FrameSink,
    private readonly events: UserEventStream,
    private readonly counter: DeliveryCounter,
    private readonly heartbeatSeconds: number,
  ) {}

  /** Greets the client and catches it up; the user's channel must already be subscribed. */
  async start(resume: ResumePoint | undefined): Promise<void> {
    if (resume) {
      const check = await this.events.checkReplay(this.address, resume.stream, resume.seq);
      this.hello(check.kind === 'events', check);
      if (check.kind === 'events') {
        this.adopt(resume);
        await this.replayUpTo(check);
      } else {
        this.sendResync(check);
        this.adopt(check);
      }
    } else {
      const position = await this.events.position(this.address);
      this.hello(false, position);
      this.adopt(position);
    }
    this.release();
  }

  /** A live event from the user's channel. */
  deliver(event: StreamedEvent): void {
    if (this.held) {
      if (this.held.length >= MAX_HELD_EVENTS) this.sink.dropSlowConsumer();
      else this.held.push(event);
      return;
    }
    if (event.seq === 0) {
      if (this.sink.send(event.frame)) this.counter.delivered('ephemeral', 1);
      return;
    }
    // A client that has seen no event yet takes the stream of the first one it hears of.
    if (this.stream === '' && this.lastSeq === 0) this.stream = event.stream;
    if (event.stream !== this.stream) {
      this.sendResync(event);
      this.adopt(event);
      return;
    }
    if (event.seq <= this.lastSeq) return;
    if (event.seq === this.lastSeq + 1) {
      this.adopt(event);
      if (this.sink.send(event.frame)) this.counter.delivered('durable', 1);
      return;
    }
    this.held = [event];
    void this.fillGap();
  }

  /** Reads the events after the last one sent from the log (events may have been lost on their way). */
  catchUp(): void {
    // A read that began before the loss may have missed its end: one more follows it.
    if (this.held) {
      this.catchUpPending = true;
      return;
    }
    this.held = [];
    void this.fillGap();
  }

  private async fillGap(): Promise<void> {
    try {
      const check = await this.events.checkReplay(this.address, this.stream, this.lastSeq);
      if (check.kind === 'events') await this.replayUpTo(check);
      else {
        this.sendResync(check);
        this.adopt(check);
      }
    } catch {
      this.skipUnreadable();
    }
    this.release();
  }

  /**
   * Shared state is away: what was missed cannot be read now. The client re-reads over REST and
   * continues from the position the resync names: just before the first event held back, which
   * then follows. Without moving past the gap, releasing the held events would open the same
   * read again at once; and while Redis is away a read fails at once (its commands fail fast),
   * so that loop would never yield to the event loop and the pod would stop for good (the soak
   * found it: a ws pod that no longer answered SIGTERM, 2026-11-27).
   */
  private skipUnreadable(): void {
    const next = (this.held ?? [])
      .filter((event) => event.stream === this.stream && event.seq > this.lastSeq)
      .reduce<StreamedEvent | undefined>(
        (min, event) => (min && min.seq <= event.seq ? min : event),
        undefined,
      );
    if (next) this.adopt({ stream: next.stream, seq: next.seq - 1 });
    this.counter.resync?.('unavailable');
    this.sink.send(
      controlFrame('resync_required', {
        stream: this.stream,
        seq: this.lastSeq,
        reason: 'unavailable',
      }),
    );
  }

  /** Sends the kept events after `lastSeq` up to `check.seq`, in batches, at the client's pace. */
  private async replayUpTo(check: ReplayCheck): Promise<void> {
    while (this.lastSeq < check.seq) {
      const to = Math.min(this.lastSeq + REPLAY_BATCH, check.seq);
      const frames = await this.events.frames(this.address, this.lastSeq + 1, to);
      if (!frames) {
        this.sendResync(check);
        this.adopt(check);
        return;
      }
      for (const frame of frames) if (!(await this.sink.sendPaced(frame))) return;
      this.counter.delivered('replayed', frames.length);
      this.adopt({ stream: check.stream, seq: to });
    }
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const event of held) this.deliver(event);
    if (this.catchUpPending && this.held === null) {
      this.catchUpPending = false;
      this.catchUp();
    }
  }

  private adopt(position: { stream: string; seq: number }): void {
    this.stream = position.stream;
    this.lastSeq = position.seq;
  }

  private hello(resumed: boolean, position: { stream: string; seq: number }): void {
    this.sink.send(
      controlFrame('hello', {
        address: this.address,
        stream: position.stream,
        seq: position.seq,
        resumed,
        heartbeat_seconds: this.heartbeatSeconds,
      }),
    );
  }

  private sendResync(position: { stream: string; seq: number }): void {
    this.counter.resync?.('gap');
    this.sink.send(
      controlFrame('resync_required', {
        stream: position.stream,
        seq: position.seq,
        reason: 'gap',
      }),
    );
  }
}
