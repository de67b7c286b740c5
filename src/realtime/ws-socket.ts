/**
 * What a /ws connection keeps (uWS user data: one object per socket, no closures) and the one way
 * it is closed by the server. Everything per connection lives here; the endpoint's functions take
 * the socket as an argument rather than closing over it.
 */
import type { WebSocket } from 'uWebSockets.js';
import type { ChannelFeed } from './channel-feed.js';
import type { ClientConnection, ResumePoint } from './client-connection.js';
import type { SinkState } from './socket-sink.js';
import type { WsCredentials } from './ws-authentication.js';

export interface SocketState extends SinkState {
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

export type Socket = WebSocket<SocketState>;

export const CLOSE_SLOW_CONSUMER = 1013;
export const CLOSE_RESTARTING = 1012;
/** Application close codes 4000 + the HTTP status a handshake refusal would have had. */
export const CLOSE_UNAUTHORIZED = 4401;
export const CLOSE_AUTHENTICATION_UNAVAILABLE = 4503;

/** Closes the connection once, with a code and reason; false when it was already closing. */
export function closeWith(ws: Socket, code: number, reason: string): boolean {
  const state = ws.getUserData();
  if (state.closed) return false;
  state.closed = true;
  ws.end(code, reason);
  return true;
}
