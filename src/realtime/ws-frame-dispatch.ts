/**
 * The message handler of /ws: client frames are handled one after the other, in the order they
 * came, once the connection is authenticated, and each is answered (`ack`, `pong`) or refused
 * with an `error` frame naming its `id`; the connection stays open. A dependency outage refuses
 * the frame with UNAVAILABLE, reported by the OutageLog once per interval.
 */
import {
  DependencyUnavailableError,
  OUTAGE_RETRY_AFTER_SECONDS,
} from '../platform/errors/dependency-unavailable.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { WsFrameLimits } from '../limits/ws-limits.js';
import { controlFrame } from '../events/event-envelope.js';
import {
  CHANNELS_RESUME,
  channelChangePositionsOf,
  channelPositionsOf,
  parseFrame,
} from './client-frames.js';
import type { ClientFrame } from './client-frames.js';
import { FrameError } from './frame-error.js';
import type { RealtimeMetrics } from './realtime-metrics.js';
import { CALL_FRAME_TYPES } from './signaling/call-signaling.js';
import type { CallFrameType, CallSignaling } from './signaling/call-signaling.js';
import type { SlowConsumerRule } from './socket-sink.js';
import { sinkOf } from './ws-backpressure.js';
import { queueInbound } from './ws-socket.js';
import type { Socket, SocketState } from './ws-socket.js';
import type { ClientConnection } from './client-connection.js';

export interface FrameDispatchDependencies {
  readonly signaling: CallSignaling;
  readonly limits: WsFrameLimits;
  readonly metrics: RealtimeMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
  readonly slowConsumers: SlowConsumerRule;
}

/** The message handler: queues the frame behind the authentication (the chain's first link) and the frames before it. */
export function receiveFrame(
  parts: FrameDispatchDependencies,
  ws: Socket,
  message: ArrayBuffer,
): void {
  const state = ws.getUserData();
  // The buffer is only valid during this callback: decode it now.
  const text = Buffer.from(message).toString('utf8');
  queueInbound(state, () => {
    if (state.connection && !state.closed) return handleFrame(parts, ws, state.connection, text);
  });
}

async function handleFrame(
  parts: FrameDispatchDependencies,
  ws: Socket,
  { address }: ClientConnection,
  text: string,
): Promise<void> {
  const state = ws.getUserData();
  let ref: string | null = null;
  try {
    const frame = parseFrame(text);
    ref = frame.ref;
    const answer = isCallFrame(frame.type)
      ? await relayCall(parts, address, frame.type, frame.body)
      : await answerOwnFrame(parts, state, address, frame);
    sinkOf(ws, parts.slowConsumers).send(controlFrame(answer, { ref }));
  } catch (error) {
    const refused = refusalOf(parts, error, address);
    parts.metrics.framesRefused.inc({ reason: refused.code.toLowerCase() });
    const retry =
      refused.retryAfterSeconds === null ? {} : { retry_after: refused.retryAfterSeconds };
    sinkOf(ws, parts.slowConsumers).send(
      controlFrame('error', { ref, code: refused.code, error: refused.message, ...retry }),
    );
  }
}

function isCallFrame(type: string): type is CallFrameType {
  return (CALL_FRAME_TYPES as readonly string[]).includes(type);
}

/** Call signaling: relayed to the other party (its own limits and checks); answered `ack`. */
async function relayCall(
  parts: FrameDispatchDependencies,
  address: string,
  type: CallFrameType,
  body: Record<string, unknown>,
): Promise<string> {
  await parts.signaling.handle(address, type, body);
  return 'ack';
}

/** `ping` (answered `pong`) and `channels.resume` (answered `ack` once replayed), under the message limit. */
async function answerOwnFrame(
  parts: FrameDispatchDependencies,
  state: SocketState,
  address: string,
  frame: ClientFrame,
): Promise<string> {
  if (frame.type !== 'ping' && frame.type !== CHANNELS_RESUME)
    throw new FrameError('UNKNOWN_TYPE', `Unknown frame type "${frame.type}"`);
  const lastSeen =
    frame.type === CHANNELS_RESUME
      ? { posts: channelPositionsOf(frame.body), changes: channelChangePositionsOf(frame.body) }
      : undefined;
  const verdict = await parts.limits.message(address);
  if (!verdict.allowed)
    throw new FrameError(
      'RATE_LIMIT_EXCEEDED',
      'WebSocket message limit exceeded',
      Math.max(1, Math.ceil((verdict.retryAfterMs ?? 0) / 1000)),
    );
  if (!lastSeen) return 'pong';
  // Posts first: every change replayed then names a post the client has.
  await state.channelFeed?.resume(lastSeen.posts, 'posts');
  await state.channelFeed?.resume(lastSeen.changes, 'changes');
  return 'ack';
}

/** What the client is told of a failure: outages and unexpected errors become UNAVAILABLE and INTERNAL. */
function refusalOf(parts: FrameDispatchDependencies, error: unknown, address: string): FrameError {
  if (error instanceof DependencyUnavailableError) {
    parts.outages.report(error);
    return new FrameError(
      'UNAVAILABLE',
      'Temporarily unavailable: retry later',
      OUTAGE_RETRY_AFTER_SECONDS,
    );
  }
  if (error instanceof FrameError) return error;
  parts.logger.error({ err: error, address }, 'WebSocket frame failed');
  return new FrameError('INTERNAL', 'The frame could not be handled');
}
