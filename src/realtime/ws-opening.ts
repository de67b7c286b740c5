/**
 * The open handler of /ws. The credentials the upgrade took are checked right after it
 * (ws-upgrade.ts says why): a socket is registered under its session before the session is
 * checked, so no ending slips in between (session-sockets.ts); refused credentials close it with
 * 4401, credentials that cannot be checked with 4503. An authenticated connection is then
 * attached to its user's event channel and its channel feed, greeted, caught up when it resumes
 * (`?stream=…&last_seq=…`), announced, and receives its user's events live (1011 when that fails).
 */
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { SessionConnections } from '../events/session-connections.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import type { ChannelDelivery } from './channel-delivery.js';
import { ClientConnection } from './client-connection.js';
import type { DeliveryCounter, ResumePoint } from './client-connection.js';
import type { RealtimeMetrics } from './realtime-metrics.js';
import type { SessionSockets } from './session-sockets.js';
import type { SlowConsumerRule } from './socket-sink.js';
import type { UserChannels } from './user-channels.js';
import { identifyWebSocket } from './ws-authentication.js';
import type { WsCredentials, WsIdentity } from './ws-authentication.js';
import { sinkOf } from './ws-backpressure.js';
import type { LogFailure } from './ws-failures.js';
import {
  CLOSE_AUTHENTICATION_UNAVAILABLE,
  CLOSE_UNAUTHORIZED,
  closeWith,
  queueInbound,
} from './ws-socket.js';
import type { Socket } from './ws-socket.js';

export interface OpeningDependencies {
  readonly tickets: WsTickets;
  readonly verification: TokenVerification;
  readonly events: UserEventStream;
  readonly connections: UserConnections;
  readonly sessionConnections: SessionConnections;
  readonly metrics: RealtimeMetrics;
  readonly heartbeatSeconds: number;
  readonly sockets: Set<Socket>;
  readonly sessions: SessionSockets<Socket>;
  readonly channels: UserChannels;
  readonly channelDelivery: ChannelDelivery;
  readonly counter: DeliveryCounter;
  readonly slowConsumers: SlowConsumerRule;
  readonly logFailure: LogFailure;
}

/** The open handler: authentication is the first link of the chain that client frames wait on. */
export function openSocket(parts: OpeningDependencies, ws: Socket): void {
  parts.sockets.add(ws);
  parts.metrics.connections.inc();
  const state = ws.getUserData();
  const { credentials, resume } = state.handshake!;
  state.handshake = undefined;
  queueInbound(state, () =>
    authenticate(parts, ws, credentials).then(
      (identity) => {
        if (state.closed) return;
        if (!identity) {
          closeWith(ws, CLOSE_UNAUTHORIZED, 'unauthorized: a valid WebSocket ticket is required');
          return;
        }
        return attachConnection(parts, ws, identity, resume);
      },
      (error: unknown) => {
        parts.logFailure(error, 'WebSocket authentication failed', '');
        closeWith(
          ws,
          CLOSE_AUTHENTICATION_UNAVAILABLE,
          'authentication unavailable: reconnect later',
        );
      },
    ),
  );
}

/** Whom the connection's credentials name, if valid and their session is live; rejects when that cannot be checked. */
async function authenticate(
  parts: OpeningDependencies,
  ws: Socket,
  credentials: WsCredentials,
): Promise<WsIdentity | undefined> {
  const state = ws.getUserData();
  const identity = await identifyWebSocket(credentials, parts.tickets, parts.verification.tokens);
  if (!identity || state.closed) return undefined;
  parts.sessions.add(identity.sessionId, ws);
  state.sessionId = identity.sessionId;
  const status = await parts.verification.revocations.status(identity.sessionId, identity.tokenId);
  if (status === 'unknown')
    throw new DependencyUnavailableError('redis', 'the session revocations are being rebuilt');
  return status === 'live' ? identity : undefined;
}

/** Attaches an authenticated socket to its user's events and channels, greets it and announces it. */
function attachConnection(
  parts: OpeningDependencies,
  ws: Socket,
  identity: WsIdentity,
  resume: ResumePoint | undefined,
): Promise<void> {
  const state = ws.getUserData();
  const sink = sinkOf(ws, parts.slowConsumers);
  const connection = new ClientConnection(
    identity.address,
    sink,
    parts.events,
    parts.counter,
    parts.heartbeatSeconds,
  );
  state.connection = connection;
  return Promise.all([
    parts.channels.attach(connection),
    parts.sessionConnections.hold(identity.sessionId),
  ])
    .then(() => parts.channelDelivery.open(identity.address, sink))
    .then((feed) => {
      if (state.closed) parts.channelDelivery.close(feed);
      else state.channelFeed = feed;
    })
    .then(() => connection.start(resume))
    .then(() => {
      parts.connections
        .announce(identity.address)
        .catch((error: unknown) =>
          parts.logFailure(
            error,
            'connection not announced; queued deliveries wait for the next one',
            identity.address,
          ),
        );
    })
    .catch((error: unknown) => {
      parts.logFailure(
        error,
        'WebSocket could not be attached to its event stream',
        identity.address,
      );
      closeWith(ws, 1011, 'events unavailable: reconnect later');
    });
}
