/**
 * The /ws side of a process (roles all and ws): the realtime area over the shared parts, with
 * calls waking the callee's offline devices through `WakeUps`.
 */
import type { Config } from '../platform/config/settings.js';
import { createRealtimeArea } from '../realtime/realtime-area.js';
import type { ProcessPorts } from './process-ports.js';
import type { SharedParts } from './shared-parts.js';

export function buildRealtimeRole(config: Config, ports: ProcessPorts, shared: SharedParts) {
  return createRealtimeArea({
    settings: config.realtime,
    sharedState: ports.sharedState,
    events: shared.userEvents,
    connections: shared.userConnections,
    channelPosts: shared.channelPosts,
    channelFollows: shared.channelFollows,
    sessionConnections: shared.sessionConnections,
    wakeCallee: (callee) => void shared.wakeUps.wake([callee], { kind: 'call' }),
    tickets: shared.wsTickets,
    verification: shared.verification,
    blockMirror: shared.blockMirror,
    frameLimits: shared.limits.wsFrameLimits,
    metrics: shared.realtimeMetrics,
    logger: ports.logger,
    outages: ports.outages,
  });
}

export type RealtimeRole = ReturnType<typeof buildRealtimeRole>;
