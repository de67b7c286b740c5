/**
 * The /ws route (protocol: docs/realtime.md). The handshake is authenticated before the upgrade
 * (ws-authentication.ts), so an unauthenticated client gets 401 in the failure envelope and
 * never a socket. An open connection is attached to its user's event channel, greeted, caught up
 * when it resumes (`?stream=…&last_seq=…`), and then receives its user's events live.
 *
 * Protection of the pod: a connection whose unsent data passes WS_MAX_BUFFERED_BYTES is a slow
 * consumer and is closed (1013), so it never holds memory or slows the fan-out to others; one
 * that answers neither traffic nor pings for WS_HEARTBEAT_SECONDS is dead and is closed by uWS.
 * On shutdown every connection is closed with 1012 and a reason telling the client to reconnect
 * (to another pod) with its position. When its session ends, on whichever pod, a connection is
 * closed with 4401 (session-sockets.ts). A dependency outage closes a new connection with 4503
 * and refuses frames with UNAVAILABLE, reported by the OutageLog once per interval.
 */
import type { HttpResponse, TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import { DependencyUnavailableError, OUTAGE_RETRY_AFTER_SECONDS } from '../platform/errors/dependency-unavailable.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { WsFrameLimits } from '../limits/ws-limits.js';
import type { Logger } from '../platform/logging/logger.js';
import { statusLine } from '../server/http-message.js';
import { ChannelDelivery } from './channel-delivery.js';
import type { ChannelFeed } from './channel-feed.js';
import { ClientConnection } from './client-connection.js';
import type { FrameSink, ResumePoint } from './client-connection.js';
import { SocketSink } from './socket-sink.js';
import type { SinkState, SlowConsumerRule } from './socket-sink.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import { controlFrame } from '../events/event-envelope.js';
import type { SessionConnections } from '../events/session-connections.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import { FrameError } from './frame-error.js';
import type { RealtimeMetrics } from './realtime-metrics.js';
import { CALL_FRAME_TYPES } from './signaling/call-signaling.js';
import type { CallFrameType, CallSignaling } from './signaling/call-signaling.js';
import { UserChannels } from './user-channels.js';
import { SessionSockets } from './session-sockets.js';
import { BEARER_SUBPROTOCOL, identifyWebSocket, offersCredentials } from './ws-authentication.js';
import type { WsCredentials, WsIdentity } from './ws-authentication.js';

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

interface SocketState extends SinkState {
  /**
   * What the handshake offered, until authentication has read it: a bearer token is hundreds of
   * bytes that a connection would otherwise keep for its whole life.
   */
  credentials: WsCredentials | undefined;
  /** The authenticated user; empty until authentication completes. */
  address: string;
  /** The session the credentials belong to, once they are known. */
  sessionId?: string;
  /** Whether this socket counts in SessionConnections (released on close). */
  heldSession?: boolean;
  readonly resume: ResumePoint | undefined;
  connection?: ClientConnection;
  channelFeed?: ChannelFeed;
  /** Client frames are handled one after the other, in the order they came. */
  inbound: Promise<void>;
}

const MAX_FRAME_BYTES = 64 * 1024;
const FRAME_ID = /^[\w.:-]{1,64}$/;
export const CLOSE_SLOW_CONSUMER = 1013;
export const CLOSE_RESTARTING = 1012;
/** Application close codes 4000 + the HTTP status a handshake refusal would have had. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_AUTHENTICATION_UNAVAILABLE = 4503;
const SESSION_ENDED_REASON = 'session ended: sign in again';

export function createWsEndpoint(deps: WsEndpointDependencies): WsEndpoint {
  const sockets = new Set<WebSocket<SocketState>>();
  const observeFanout = (publishedAt: number) => deps.metrics.fanoutLatency.observe(Math.max(0, Date.now() - publishedAt) / 1000);
  const channels = new UserChannels(deps.events, observeFanout);
  // One child counter per kind, looked up once: a delivery then costs no label hashing.
  const deliveredOf = { durable: deps.metrics.eventsDelivered.labels('durable'), ephemeral: deps.metrics.eventsDelivered.labels('ephemeral'), replayed: deps.metrics.eventsDelivered.labels('replayed') };
  const counter = { delivered: (kind: 'durable' | 'ephemeral' | 'replayed', count: number) => deliveredOf[kind].inc(count) };

  const dropSlowConsumer = (ws: WebSocket<SocketState>) => {
    if (closeWith(ws, CLOSE_SLOW_CONSUMER, 'slow consumer: reconnect with stream and last_seq')) deps.metrics.slowConsumersDropped.inc();
  };

  const slowConsumerRule: SlowConsumerRule = { maxBufferedBytes: deps.maxBufferedBytes, drop: (ws) => dropSlowConsumer(ws as WebSocket<SocketState>) };
  const sinkOf = (ws: WebSocket<SocketState>): FrameSink => new SocketSink(ws, slowConsumerRule);

  /** Logs a failure: an outage once per interval, anything else with its stack. */
  const logFailure = (error: unknown, message: string, address: string) => {
    if (error instanceof DependencyUnavailableError) deps.outages.report(error);
    else deps.logger.error({ err: error, address }, message);
  };

  const reply = (ws: WebSocket<SocketState>, frame: string) => sinkOf(ws).send(frame);
  const sessions = new SessionSockets<WebSocket<SocketState>>(
    deps.verification.revocations,
    (ws) => closeWith(ws, CLOSE_UNAUTHORIZED, SESSION_ENDED_REASON),
    (error) => logFailure(error, 'open sockets not checked against ended sessions; retrying', ''),
  );
  sessions.listen();
  const channelDelivery = new ChannelDelivery(
    deps.channelPosts,
    deps.channelFollows,
    counter,
    observeFanout,
    (error, address) => logFailure(error, 'channel follows not read; retrying', address),
    (count) => deps.metrics.channelTopics.set(count),
  );
  channelDelivery.listen();

  /** Whom the connection's credentials name, if valid and their session is live; rejects when that cannot be checked. */
  async function authenticate(ws: WebSocket<SocketState>): Promise<WsIdentity | undefined> {
    const state = ws.getUserData();
    const credentials = state.credentials!;
    state.credentials = undefined;
    const identity = await identifyWebSocket(credentials, deps.tickets, deps.verification.tokens);
    if (!identity || state.closed) return undefined;
    sessions.add(identity.sessionId, ws);
    state.sessionId = identity.sessionId;
    const status = await deps.verification.revocations.status(identity.sessionId, identity.tokenId);
    if (status === 'unknown') throw new DependencyUnavailableError('redis', 'the session revocations are being rebuilt');
    return status === 'live' ? identity : undefined;
  }

  async function handleFrame(ws: WebSocket<SocketState>, text: string): Promise<void> {
    const state = ws.getUserData();
    let ref: string | null = null;
    try {
      const frame = parseFrame(text);
      ref = frame.ref;
      if ((CALL_FRAME_TYPES as readonly string[]).includes(frame.type)) {
        await deps.signaling.handle(state.address, frame.type as CallFrameType, frame.body);
        reply(ws, controlFrame('ack', { ref }));
        return;
      }
      if (frame.type !== 'ping' && frame.type !== CHANNELS_RESUME) throw new FrameError('UNKNOWN_TYPE', `Unknown frame type "${frame.type}"`);
      const lastSeen = frame.type === CHANNELS_RESUME ? channelPositionsOf(frame.body) : undefined;
      const verdict = await deps.limits.message(state.address);
      if (!verdict.allowed) throw new FrameError('RATE_LIMIT_EXCEEDED', 'WebSocket message limit exceeded', Math.max(1, Math.ceil((verdict.retryAfterMs ?? 0) / 1000)));
      if (lastSeen) {
        await state.channelFeed?.resume(lastSeen);
        reply(ws, controlFrame('ack', { ref }));
      } else reply(ws, controlFrame('pong', { ref }));
    } catch (error) {
      if (error instanceof DependencyUnavailableError) {
        deps.outages.report(error);
        error = new FrameError('UNAVAILABLE', 'Temporarily unavailable: retry later', OUTAGE_RETRY_AFTER_SECONDS);
      } else if (!(error instanceof FrameError)) {
        deps.logger.error({ err: error, address: state.address }, 'WebSocket frame failed');
        error = new FrameError('INTERNAL', 'The frame could not be handled');
      }
      const refused = error as FrameError;
      deps.metrics.framesRefused.inc({ reason: refused.code.toLowerCase() });
      reply(ws, controlFrame('error', { ref, code: refused.code, error: refused.message, ...(refused.retryAfterSeconds === null ? {} : { retry_after: refused.retryAfterSeconds }) }));
    }
  }

  return {
    attach(app) {
      app.ws<SocketState>('/ws', {
        // uWS requires a multiple of 4; it pings a quiet connection and drops one that stays silent.
        idleTimeout: Math.ceil(deps.heartbeatSeconds / 4) * 4,
        sendPingsAutomatically: true,
        maxPayloadLength: MAX_FRAME_BYTES,
        maxBackpressure: deps.maxBufferedBytes,
        closeOnBackpressureLimit: 0,
        upgrade: (res, req, context) => {
          // Synchronous on purpose: this uWebSockets.js build can close a socket upgraded
          // asynchronously inside res.cork() right after its open event (uWebSockets PR #1929),
          // and an uncorked upgrade logs a warning per connection. So requests that cannot
          // succeed are refused here with HTTP status and envelope, and credentials that need
          // shared state are checked right after the upgrade (close 4401 / 4503).
          const query = new URLSearchParams(req.getQuery() ?? '');
          const protocols = (req.getHeader('sec-websocket-protocol') || '').split(',').map((p) => p.trim()).filter(Boolean);
          const credentials = { ticket: query.get('ticket') ?? undefined, protocols };
          const resume = resumePointOf(query);
          if (resume === null) return refuse(res, 400, 'stream and last_seq must be given together; last_seq is a whole number', 'INVALID_ARGUMENT');
          if (!offersCredentials(credentials)) return refuse(res, 401, 'A valid WebSocket ticket is required', 'UNAUTHORIZED');
          const state: SocketState = { credentials, address: '', resume, closed: false, inbound: Promise.resolve(), drainWaiters: [] };
          const protocol = credentials.ticket ? (protocols[0] ?? '') : BEARER_SUBPROTOCOL;
          res.upgrade(state, req.getHeader('sec-websocket-key'), protocol, req.getHeader('sec-websocket-extensions'), context);
        },
        open: (ws) => {
          sockets.add(ws);
          deps.metrics.connections.inc();
          const state = ws.getUserData();
          state.inbound = authenticate(ws).then(
            (identity) => {
              if (state.closed) return;
              if (!identity) {
                closeWith(ws, CLOSE_UNAUTHORIZED, 'unauthorized: a valid WebSocket ticket is required');
                return;
              }
              state.address = identity.address;
              const sink = sinkOf(ws);
              const connection = new ClientConnection(identity.address, sink, deps.events, counter, deps.heartbeatSeconds);
              state.connection = connection;
              state.heldSession = true;
              return Promise.all([channels.attach(connection), deps.sessionConnections.hold(identity.sessionId)])
                .then(() => channelDelivery.open(identity.address, sink))
                .then((feed) => {
                  if (state.closed) channelDelivery.close(feed);
                  else state.channelFeed = feed;
                })
                .then(() => connection.start(state.resume))
                .then(() => {
                  deps.connections.announce(identity.address).catch((error: unknown) => logFailure(error, 'connection not announced; queued deliveries wait for the next one', identity.address));
                })
                .catch((error: unknown) => {
                  logFailure(error, 'WebSocket could not be attached to its event stream', identity.address);
                  closeWith(ws, 1011, 'events unavailable: reconnect later');
                });
            },
            (error: unknown) => {
              logFailure(error, 'WebSocket authentication failed', '');
              closeWith(ws, CLOSE_AUTHENTICATION_UNAVAILABLE, 'authentication unavailable: reconnect later');
            },
          );
        },
        message: (ws, message) => {
          const state = ws.getUserData();
          // The buffer is only valid during this callback: decode it now. Frames wait for the
          // authentication (the first link of the chain) and are handled in order.
          const text = Buffer.from(message).toString('utf8');
          state.inbound = state.inbound.then(() => {
            if (state.connection && !state.closed) return handleFrame(ws, text);
          });
        },
        drain: (ws) => wakeDrainWaiters(ws.getUserData()),
        close: (ws) => {
          sockets.delete(ws);
          deps.metrics.connections.dec();
          const state = ws.getUserData();
          state.closed = true;
          wakeDrainWaiters(state);
          if (state.connection) channels.detach(state.connection);
          if (state.channelFeed) channelDelivery.close(state.channelFeed);
          if (state.sessionId) sessions.remove(state.sessionId, ws);
          if (state.sessionId && state.heldSession) deps.sessionConnections.release(state.sessionId);
        },
      });
    },

    closeAll() {
      sessions.stop();
      void channelDelivery.stop();
      for (const ws of sockets) closeWith(ws, CLOSE_RESTARTING, 'server restarting: reconnect with stream and last_seq');
    },
  };
}

/** Closes the connection once, with a code and reason; false when it was already closing. */
function closeWith(ws: WebSocket<SocketState>, code: number, reason: string): boolean {
  const state = ws.getUserData();
  if (state.closed) return false;
  state.closed = true;
  ws.end(code, reason);
  return true;
}

function wakeDrainWaiters(state: SocketState): void {
  for (const wake of state.drainWaiters.splice(0)) wake();
}

/** Undefined: a fresh connection; null: a malformed resume request. */
function resumePointOf(query: URLSearchParams): ResumePoint | undefined | null {
  const stream = query.get('stream');
  const lastSeq = query.get('last_seq');
  if (stream === null && lastSeq === null) return undefined;
  if (stream === null || lastSeq === null || !/^\d{1,10}$/.test(lastSeq) || stream.length > 64) return null;
  return { stream, seq: Number(lastSeq) };
}

function parseFrame(text: string): { type: string; ref: string | null; body: Record<string, unknown> } {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new FrameError('INVALID_ARGUMENT', 'A frame is a JSON object');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new FrameError('INVALID_ARGUMENT', 'A frame is a JSON object');
  const frame = body as Record<string, unknown>;
  if (typeof frame.type !== 'string') throw new FrameError('INVALID_ARGUMENT', 'A frame needs a string type');
  if (frame.id !== undefined && (typeof frame.id !== 'string' || !FRAME_ID.test(frame.id))) {
    throw new FrameError('INVALID_ARGUMENT', 'id is 1 to 64 characters from A-Z, a-z, 0-9, _ . : -');
  }
  return { type: frame.type, ref: (frame.id as string | undefined) ?? null, body: frame };
}

/** The client frame that catches a connection up on its channels (docs/realtime.md, "Channels"). */
const CHANNELS_RESUME = 'channels.resume';
/** Channels one `channels.resume` may name (the most a user can follow is far below). */
const MAX_RESUME_CHANNELS = 10_000;
const CHANNEL_ID = /^[\w-]{1,64}$/;

/** `positions`: an object of channel id to the last post number seen (a whole number). */
function channelPositionsOf(body: Record<string, unknown>): Map<string, number> {
  const positions = body.positions;
  const refuse = () => new FrameError('INVALID_ARGUMENT', `positions is an object of at most ${MAX_RESUME_CHANNELS} channel ids to the last post sequence seen (a whole number)`);
  if (typeof positions !== 'object' || positions === null || Array.isArray(positions)) throw refuse();
  const entries = Object.entries(positions);
  if (entries.length > MAX_RESUME_CHANNELS) throw refuse();
  for (const [channelId, seen] of entries) {
    if (!CHANNEL_ID.test(channelId) || typeof seen !== 'number' || !Number.isSafeInteger(seen) || seen < 0 || seen > 0xffffffff) throw refuse();
  }
  return new Map(entries as [string, number][]);
}

function refuse(res: HttpResponse, status: number, error: string, code: string): void {
  res.cork(() => {
    res.writeStatus(statusLine(status)).writeHeader('Content-Type', 'application/json').end(JSON.stringify({ success: false, error, code }));
  });
}
