/** The /ws tier of a process with role `all` or `ws`: its endpoint and what it needs. */
import { BlockMirror } from '../contacts/block-mirror.js';
import { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { UNLIMITED_WS_FRAMES, WsLimits } from '../limits/ws-limits.js';
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { Metrics } from '../platform/metrics/metrics.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { UserEventStream } from './events/user-event-stream.js';
import { CallSignaling } from './signaling/call-signaling.js';
import { createWsEndpoint } from './ws-endpoint.js';
import type { WsEndpoint } from './ws-endpoint.js';

export interface RealtimeTierDependencies {
  readonly config: Config;
  readonly sharedState: SharedState;
  readonly verification: TokenVerification;
  readonly limiter: RateLimiter;
  readonly events: UserEventStream;
  readonly metrics: Metrics;
  readonly logger: Logger;
}

export function createRealtimeTier(deps: RealtimeTierDependencies): WsEndpoint {
  const { config } = deps;
  const limits = config.rateLimitsEnabled
    ? new WsLimits(deps.limiter, { messages: { limit: config.wsRateLimitPerMin, burst: config.wsRateLimitBurst } })
    : UNLIMITED_WS_FRAMES;
  return createWsEndpoint({
    tickets: new WsTickets(deps.sharedState),
    verification: deps.verification,
    events: deps.events,
    signaling: new CallSignaling(deps.sharedState, deps.events, limits, new BlockMirror(deps.sharedState)),
    limits,
    metrics: deps.metrics.realtime,
    logger: deps.logger,
    heartbeatSeconds: config.wsHeartbeatSeconds,
    maxBufferedBytes: config.wsMaxBufferedBytes,
  });
}
