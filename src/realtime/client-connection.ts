/**
 * One WebSocket connection's view of its user's event stream: what it has been sent, and the
 * rules that make delivery gap-free and duplicate-free.
 *
 * - Until `start` has sent the greeting (and, when resuming, the missed events), live events are
 *   held back, so nothing overtakes the replay.
 * - A durable event is sent only if it is the next number; one already sent is skipped, and a
 *   jump (a publish lost while the pod's Redis subscription was reconnecting) is filled from the
 *   replay log before going on. When it cannot be filled, or the stream was restarted, the
 *   client is told `resync_required` and re-reads its state over REST.
 * - Ephemeral events go straight out.
 */
import { controlFrame } from './events/event-envelope.js';
import type { ReplayResult, StreamedEvent, UserEventStream } from './events/user-event-stream.js';

/** Where the socket's frames go; `send` answers false once the connection is gone. */
export interface FrameSink {
  send(frame: string): boolean;
}

export interface ResumePoint {
  readonly stream: string;
  readonly seq: number;
}

export interface DeliveryCounter {
  delivered(kind: 'durable' | 'ephemeral' | 'replayed', count: number): void;
}

export class ClientConnection {
  private stream = '';
  private lastSeq = 0;
  /** Live events that arrived while the connection was starting or filling a gap. */
  private held: StreamedEvent[] | null = [];

  constructor(
    readonly address: string,
    readonly sessionId: string,
    private readonly sink: FrameSink,
    private readonly events: UserEventStream,
    private readonly counter: DeliveryCounter,
    private readonly heartbeatSeconds: number,
  ) {}

  /** Greets the client and catches it up; the user's channel must already be subscribed. */
  async start(resume: ResumePoint | undefined): Promise<void> {
    if (resume) {
      const replay = await this.events.replay(this.address, resume.stream, resume.seq);
      this.hello(replay.kind === 'events', replay);
      if (replay.kind === 'events') {
        this.lastSeq = resume.seq;
        this.sendReplayed(replay.frames);
      } else {
        this.sendResync(replay);
      }
      this.adopt(replay);
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
      this.held.push(event);
      return;
    }
    if (event.seq === 0) {
      if (this.sink.send(event.frame)) this.counter.delivered('ephemeral', 1);
      return;
    }
    const firstOfStream = this.stream === '' && event.seq === 1;
    if (event.stream !== this.stream && !firstOfStream) {
      this.sendResync(event);
      this.adopt(event);
      return;
    }
    if (event.seq <= this.lastSeq) return;
    if (event.seq === this.lastSeq + 1) {
      this.stream = event.stream;
      this.lastSeq = event.seq;
      if (this.sink.send(event.frame)) this.counter.delivered('durable', 1);
      return;
    }
    this.held = [event];
    void this.fillGap();
  }

  private async fillGap(): Promise<void> {
    try {
      const replay = await this.events.replay(this.address, this.stream, this.lastSeq);
      if (replay.kind === 'events') this.sendReplayed(replay.frames);
      else this.sendResync(replay);
      this.adopt(replay);
    } catch {
      // Shared state is away: the client cannot be caught up now, so it must resync later.
      this.sink.send(controlFrame('resync_required', { stream: this.stream, seq: this.lastSeq, reason: 'unavailable' }));
    }
    this.release();
  }

  private release(): void {
    const held = this.held ?? [];
    this.held = null;
    for (const event of held) this.deliver(event);
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

  private sendReplayed(frames: readonly string[]): void {
    let sent = 0;
    for (const frame of frames) if (this.sink.send(frame)) sent += 1;
    if (sent > 0) this.counter.delivered('replayed', sent);
  }

  private sendResync(position: ReplayResult | StreamedEvent): void {
    this.sink.send(controlFrame('resync_required', { stream: position.stream, seq: position.seq, reason: 'gap' }));
  }
}
