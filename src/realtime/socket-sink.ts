/**
 * A connection's FrameSink over its uWS socket, with the pod's slow-consumer rule: live traffic
 * that piles up past `maxBufferedBytes` disconnects the client; a replay waits for it to read.
 * One object per socket with its methods on the prototype: the closures a sink used to be made
 * of cost each connection about 350 bytes of heap (two sinks of three closures each).
 */
import type { WebSocket } from 'uWebSockets.js';
import type { FrameSink } from './client-connection.js';
import { inChildSpan, tracingOn } from '../platform/tracing/spans.js';

/** What the sink reads and writes of the socket's user data. */
export interface SinkState {
  closed: boolean;
  /** Paced replays waiting for the client to read; none (undefined) on most connections. */
  drainWaiters: (() => void)[] | undefined;
}

export interface SlowConsumerRule {
  readonly maxBufferedBytes: number;
  /** Closes the socket as a slow consumer. */
  drop(ws: WebSocket<SinkState>): void;
}

export class SocketSink implements FrameSink {
  constructor(
    private readonly ws: WebSocket<SinkState>,
    private readonly rule: SlowConsumerRule,
  ) {}

  send(frame: string): boolean {
    // Under a traced delivery (user-channels.ts) each socket write is a span of the trace.
    if (tracingOn())
      return inChildSpan('ws socket write', { 'ws.frame_bytes': frame.length }, () =>
        this.write(frame),
      ) as boolean;
    return this.write(frame);
  }

  private write(frame: string): boolean {
    const { ws } = this;
    if (ws.getUserData().closed) return false;
    const result = ws.send(frame, false, false);
    if (result === 2 || ws.getBufferedAmount() > this.rule.maxBufferedBytes) {
      this.rule.drop(ws);
      return false;
    }
    return true;
  }

  async sendPaced(frame: string): Promise<boolean> {
    const { ws } = this;
    const state = ws.getUserData();
    while (!state.closed && ws.getBufferedAmount() > this.rule.maxBufferedBytes / 2) {
      await new Promise<void>((resolve) => (state.drainWaiters ??= []).push(resolve));
    }
    if (state.closed) return false;
    ws.send(frame, false, false);
    return true;
  }

  dropSlowConsumer(): void {
    this.rule.drop(this.ws);
  }
}
