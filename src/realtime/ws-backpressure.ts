/**
 * Backpressure on /ws: a connection whose unsent live data passes WS_MAX_BUFFERED_BYTES is a slow
 * consumer and is closed (1013), so it never holds memory or slows the fan-out to others; a
 * replay waits for the client to read (SocketSink.sendPaced), and uWS's drain event wakes it.
 */
import type { Counter } from 'prom-client';
import type { FrameSink } from './client-connection.js';
import { SocketSink } from './socket-sink.js';
import type { SinkState, SlowConsumerRule } from './socket-sink.js';
import { CLOSE_SLOW_CONSUMER, closeWith } from './ws-socket.js';
import type { Socket } from './ws-socket.js';

/** The pod's rule, one object for all its sockets: closes a slow consumer and counts it. */
export function slowConsumerRule(
  maxBufferedBytes: number,
  slowConsumersDropped: Counter,
): SlowConsumerRule {
  return {
    maxBufferedBytes,
    drop: (ws) => {
      if (
        closeWith(
          ws as Socket,
          CLOSE_SLOW_CONSUMER,
          'slow consumer: reconnect with stream and last_seq',
        )
      )
        slowConsumersDropped.inc();
    },
  };
}

/** Where a socket's frames go, under the pod's rule. */
export function sinkOf(ws: Socket, rule: SlowConsumerRule): FrameSink {
  return new SocketSink(ws, rule);
}

/** The drain handler (and the close handler): paced replays waiting for the client go on. */
export function wakeDrainWaiters(state: SinkState): void {
  const waiters = state.drainWaiters ?? [];
  state.drainWaiters = undefined;
  for (const wake of waiters) wake();
}
