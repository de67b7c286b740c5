/**
 * What a /ws connection keeps (uWS user data: uWS copies these fields onto its socket object, so
 * each one costs every connection a slot; no closures) and the one way it is closed by the
 * server. Everything per connection lives here; the endpoint's functions take the socket as an
 * argument rather than closing over it. What only some connections need (waiting replays, frames
 * in flight) is made when needed and let go after, so an idle connection keeps only what it uses.
 */
import type { WebSocket } from 'uWebSockets.js';
import type { ChannelFeed } from './channel-feed.js';
import type { ClientConnection, ResumePoint } from './client-connection.js';
import type { SinkState } from './socket-sink.js';
import type { WsCredentials } from './ws-authentication.js';

/** What the handshake asked for, read once by the open handler. */
export interface Handshake {
  readonly credentials: WsCredentials;
  readonly resume: ResumePoint | undefined;
}

export interface SocketState extends SinkState {
  /**
   * Until the open handler has taken it: a bearer token is hundreds of bytes that a connection
   * would otherwise keep for its whole life.
   */
  handshake: Handshake | undefined;
  /** The session the credentials belong to, once they are known. */
  sessionId: string | undefined;
  /** Once authenticated: its user's events (its address says who it is); it also holds the session's presence. */
  connection: ClientConnection | undefined;
  channelFeed: ChannelFeed | undefined;
  /**
   * Client frames are handled one after the other, in the order they came: the last one queued
   * (the authentication first), undefined once all are done.
   */
  inbound: Promise<void> | undefined;
}

export type Socket = WebSocket<SocketState>;

/** A new socket's state, every field there from the start: the sockets share one shape, never a dictionary of properties. */
export function newSocketState(handshake: Handshake | undefined): SocketState {
  return {
    handshake,
    sessionId: undefined,
    connection: undefined,
    channelFeed: undefined,
    inbound: undefined,
    closed: false,
    drainWaiters: undefined,
  };
}

export const CLOSE_SLOW_CONSUMER = 1013;
export const CLOSE_RESTARTING = 1012;
/** Application close codes 4000 + the HTTP status a handshake refusal would have had. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_AUTHENTICATION_UNAVAILABLE = 4503;

/** Runs `task` after the client frames queued before it; an emptied queue is let go of. */
export function queueInbound(state: SocketState, task: () => Promise<void> | void): void {
  const queued: Promise<void> = (state.inbound ?? Promise.resolve()).then(task).then(() => {
    if (state.inbound === queued) state.inbound = undefined;
  });
  state.inbound = queued;
}

/** Closes the connection once, with a code and reason; false when it was already closing. */
export function closeWith(ws: Socket, code: number, reason: string): boolean {
  const state = ws.getUserData();
  if (state.closed) return false;
  state.closed = true;
  ws.end(code, reason);
  return true;
}
