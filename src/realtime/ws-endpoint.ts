/**
 * The /ws route (protocol: docs/realtime.md), put together from one file per step:
 * - ws-upgrade.ts: the synchronous upgrade, refusing requests without credentials or with a
 *   malformed position with HTTP status and envelope;
 * - ws-opening.ts: the credentials checked right after the upgrade (ws-authentication.ts), then
 *   the connection attached to its user's events, greeted and caught up;
 * - ws-frame-dispatch.ts: client frames, in order, answered or refused;
 * - ws-backpressure.ts: the slow-consumer rule (1013) and paced replays woken on drain;
 * - ws-closing.ts: what a closed socket lets go of;
 * - ws-socket.ts: the per-connection state (one object, no closures) and the close codes;
 * - ws-delivery-metrics.ts, ws-failures.ts: the deliveries' metrics, the failures' log.
 *
 * Besides: one that answers neither traffic nor pings for WS_HEARTBEAT_SECONDS is dead and is
 * closed by uWS. On shutdown every connection is closed with 1012 and a reason telling the client
 * to reconnect (to another pod) with its position. When its session ends, on whichever pod, a
 * connection is closed with 4401 (session-sockets.ts).
 */
import type { TemplatedApp, WebSocketBehavior } from 'uWebSockets.js';
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { WsFrameLimits } from '../limits/ws-limits.js';
import type { Logger } from '../platform/logging/logger.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { SessionConnections } from '../events/session-connections.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import { ChannelDelivery } from './channel-delivery.js';
import { MAX_FRAME_BYTES } from './client-frames.js';
import type { RealtimeMetrics } from './realtime-metrics.js';
import type { CallSignaling } from './signaling/call-signaling.js';
import { SessionSockets } from './session-sockets.js';
import { UserChannels } from './user-channels.js';
import { slowConsumerRule, wakeDrainWaiters } from './ws-backpressure.js';
import { releaseSocket } from './ws-closing.js';
import type { ClosingDependencies } from './ws-closing.js';
import { deliveryMetrics } from './ws-delivery-metrics.js';
import { failureLog } from './ws-failures.js';
import { receiveFrame } from './ws-frame-dispatch.js';
import type { FrameDispatchDependencies } from './ws-frame-dispatch.js';
import { openSocket } from './ws-opening.js';
import type { OpeningDependencies } from './ws-opening.js';
import { CLOSE_RESTARTING, CLOSE_UNAUTHORIZED, closeWith } from './ws-socket.js';
import type { Socket, SocketState } from './ws-socket.js';
import { upgradeSocket } from './ws-upgrade.js';

export {
  CLOSE_AUTHENTICATION_UNAVAILABLE,
  CLOSE_RESTARTING,
  CLOSE_SLOW_CONSUMER,
  CLOSE_UNAUTHORIZED,
} from './ws-socket.js';

export interface WsEndpointDependencies {
  readonly tickets: WsTickets;
  readonly verification: TokenVerification;
  readonly events: UserEventStream;
  /** Told of every connection that receives its user's events (queued deliveries follow). */
  readonly connections: UserConnections;
  /** Told of every session with a live connection (push notifications skip its device). */
  readonly sessionConnections: SessionConnections;
  readonly signaling: CallSignaling;
  /** Channel posts and who follows which channel (channel-delivery.ts). */
  readonly channelPosts: ChannelPostStream;
  readonly channelFollows: ChannelFollows;
  readonly limits: WsFrameLimits;
  readonly metrics: RealtimeMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
  readonly heartbeatSeconds: number;
  readonly maxBufferedBytes: number;
}

export interface WsEndpoint {
  attach(app: TemplatedApp): void;
  /** Closes every connection with 1012 and a reconnect hint (graceful shutdown). */
  closeAll(): void;
}

/** What the handlers share: one object per endpoint, handed to them with the socket. */
type EndpointParts = OpeningDependencies & FrameDispatchDependencies & ClosingDependencies;

const SESSION_ENDED_REASON = 'session ended: sign in again';

export function createWsEndpoint(deps: WsEndpointDependencies): WsEndpoint {
  const parts = endpointParts(deps);
  return {
    attach(app) {
      app.ws<SocketState>('/ws', socketBehavior(parts, deps));
    },

    closeAll() {
      parts.sessions.stop();
      void parts.channelDelivery.stop();
      for (const ws of parts.sockets)
        closeWith(ws, CLOSE_RESTARTING, 'server restarting: reconnect with stream and last_seq');
    },
  };
}

/** The pod's side of its sockets: listening for ended sessions and for channel follows starts here. */
function endpointParts(deps: WsEndpointDependencies): EndpointParts {
  const delivery = deliveryMetrics(deps.metrics);
  const { counter } = delivery;
  const logFailure = failureLog(deps.outages, deps.logger);
  const channels = new UserChannels(deps.events, delivery);
  const sessions = new SessionSockets<Socket>(
    deps.verification.revocations,
    (ws) => closeWith(ws, CLOSE_UNAUTHORIZED, SESSION_ENDED_REASON),
    (error) => logFailure(error, 'open sockets not checked against ended sessions; retrying', ''),
  );
  sessions.listen();
  const channelDelivery = new ChannelDelivery(
    deps.channelPosts,
    deps.channelFollows,
    counter,
    delivery.observeFanout,
    (error, address) => logFailure(error, 'channel follows not read; retrying', address),
    (count) => deps.metrics.channelTopics.set(count),
  );
  channelDelivery.listen();
  const slowConsumers = slowConsumerRule(deps.maxBufferedBytes, deps.metrics.slowConsumersDropped);
  return {
    ...deps,
    sockets: new Set(),
    counter,
    logFailure,
    channels,
    sessions,
    channelDelivery,
    slowConsumers,
  };
}

/** uWS's options and handlers for /ws. */
function socketBehavior(
  parts: EndpointParts,
  deps: WsEndpointDependencies,
): WebSocketBehavior<SocketState> {
  return {
    // uWS requires a multiple of 4; it pings a quiet connection and drops one that stays silent.
    idleTimeout: Math.ceil(deps.heartbeatSeconds / 4) * 4,
    sendPingsAutomatically: true,
    maxPayloadLength: MAX_FRAME_BYTES,
    maxBackpressure: deps.maxBufferedBytes,
    closeOnBackpressureLimit: 0,
    upgrade: upgradeSocket,
    open: (ws) => openSocket(parts, ws),
    message: (ws, message) => receiveFrame(parts, ws, message),
    drain: (ws) => wakeDrainWaiters(ws.getUserData()),
    close: (ws) => releaseSocket(parts, ws),
  };
}
