/**
 * The /ws tier of a process with role `all` or `ws`: its endpoint, call signaling and the
 * delivery of users' events. Tickets and token checks (identity), the block mirror (contacts)
 * and the frame limits (limits) are the app's, shared with the rest of the process.
 */
import type { BlockMirror } from '../contacts/block-mirror.js';
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import type { WsFrameLimits } from '../limits/ws-limits.js';
import type { RealtimeSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { SessionConnections } from '../events/session-connections.js';
import type { UserConnections } from '../events/user-connections.js';
import type { UserEventStream } from '../events/user-event-stream.js';
import type { RealtimeMetrics } from './realtime-metrics.js';
import { CallSignaling } from './signaling/call-signaling.js';
import type { WakeCallee } from './signaling/call-signaling.js';
import { createWsEndpoint } from './ws-endpoint.js';
import type { WsEndpoint } from './ws-endpoint.js';

export interface RealtimeDependencies {
  readonly settings: RealtimeSettings;
  readonly sharedState: SharedState;
  readonly events: UserEventStream;
  readonly connections: UserConnections;
  readonly channelPosts: ChannelPostStream;
  readonly channelFollows: ChannelFollows;
  readonly sessionConnections: SessionConnections;
  /** Push notification of an incoming call to the callee's offline devices (the push area's). */
  readonly wakeCallee: WakeCallee;
  readonly tickets: WsTickets;
  readonly verification: TokenVerification;
  readonly blockMirror: BlockMirror;
  readonly frameLimits: WsFrameLimits;
  readonly metrics: RealtimeMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
}

export function createRealtimeArea(deps: RealtimeDependencies): WsEndpoint {
  return createWsEndpoint({
    tickets: deps.tickets,
    verification: deps.verification,
    events: deps.events,
    connections: deps.connections,
    channelPosts: deps.channelPosts,
    channelFollows: deps.channelFollows,
    sessionConnections: deps.sessionConnections,
    signaling: new CallSignaling(
      deps.sharedState,
      deps.events,
      deps.frameLimits,
      deps.blockMirror,
      deps.wakeCallee,
    ),
    limits: deps.frameLimits,
    metrics: deps.metrics,
    logger: deps.logger,
    outages: deps.outages,
    heartbeatSeconds: deps.settings.heartbeatSeconds,
    maxBufferedBytes: deps.settings.maxBufferedBytes,
  });
}
