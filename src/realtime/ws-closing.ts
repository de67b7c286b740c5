/**
 * The close handler of /ws, whoever closed the socket: it stops counting, wakes its paced
 * replays (they see it closed), and lets go of its user's channel, its channel feed, its place
 * among its session's sockets and its hold on the session's presence.
 */
import type { SessionConnections } from '../events/session-connections.js';
import type { ChannelDelivery } from './channel-delivery.js';
import type { RealtimeMetrics } from './realtime-metrics.js';
import type { SessionSockets } from './session-sockets.js';
import type { UserChannels } from './user-channels.js';
import { wakeDrainWaiters } from './ws-backpressure.js';
import type { Socket } from './ws-socket.js';

export interface ClosingDependencies {
  readonly sockets: Set<Socket>;
  readonly metrics: RealtimeMetrics;
  readonly channels: UserChannels;
  readonly channelDelivery: ChannelDelivery;
  readonly sessions: SessionSockets<Socket>;
  readonly sessionConnections: SessionConnections;
}

export function releaseSocket(parts: ClosingDependencies, ws: Socket): void {
  parts.sockets.delete(ws);
  parts.metrics.connections.dec();
  const state = ws.getUserData();
  state.closed = true;
  wakeDrainWaiters(state);
  if (state.connection) parts.channels.detach(state.connection);
  if (state.channelFeed) parts.channelDelivery.close(state.channelFeed);
  if (state.sessionId) parts.sessions.remove(state.sessionId, ws);
  if (state.sessionId && state.connection) parts.sessionConnections.release(state.sessionId);
}
