/**
 * What every role builds once over the process's ports and the roles share: the limits, every
 * area's metrics (registered whatever the role, so /metrics lists the same series everywhere),
 * the token verification and /ws tickets, the block mirror, the users' event streams and
 * connection announcements, the channel post stream and follow lists, which sessions are
 * connected, and the push queue with its `WakeUps` (api areas wake recipients of messages, ws
 * pods the callees of calls).
 */
import { createAccountWalkMetrics } from '../account-lifecycle/account-walk-metrics.js';
import { BlockMirror } from '../contacts/block-mirror.js';
import { ChannelFollows } from '../events/channel-follows.js';
import { ChannelPostStream } from '../events/channel-post-stream.js';
import { SessionConnections } from '../events/session-connections.js';
import { UserConnections } from '../events/user-connections.js';
import { UserEventStream } from '../events/user-event-stream.js';
import { optionalCaller } from '../identity/auth/caller.js';
import { WsTickets } from '../identity/sessions/ws-tickets.js';
import { createTokenVerification } from '../identity/tokens/token-verification.js';
import { createKeysMetrics } from '../keys/keys-metrics.js';
import { createLimitsArea } from '../limits/limits-area.js';
import { createLocationMetrics } from '../location/location-metrics.js';
import { createMediaMetrics } from '../media/media-metrics.js';
import type { Config } from '../platform/config/settings.js';
import { PushQueue } from '../push/delivery/push-queue.js';
import { WakeUps } from '../push/delivery/wake-ups.js';
import { createPushMetrics } from '../push/push-metrics.js';
import { createRealtimeMetrics } from '../realtime/realtime-metrics.js';
import { createFrontendErrorCounter } from '../system/frontend-errors.js';
import type { ProcessPorts } from './process-ports.js';

export async function buildSharedParts(
  config: Config,
  { metrics, sharedState, logger, outages }: ProcessPorts,
) {
  const { registry } = metrics;
  const frontendErrors = createFrontendErrorCounter(registry);
  const limits = createLimitsArea({
    settings: config.limits,
    captcha: config.captcha,
    sharedState,
    registry,
    callerAddressOf: (context) => optionalCaller(context)?.address,
  });
  const areaMetrics = {
    realtimeMetrics: createRealtimeMetrics(registry),
    keysMetrics: createKeysMetrics(registry),
    locationMetrics: createLocationMetrics(registry),
    accountWalkMetrics: createAccountWalkMetrics(registry),
    pushMetrics: createPushMetrics(registry),
    mediaMetrics: createMediaMetrics(registry),
  };
  const verification = await createTokenVerification(
    config.tokens,
    config.store.dataDir,
    sharedState,
  );
  const pushQueue = new PushQueue(sharedState);
  return {
    frontendErrors,
    limits,
    ...areaMetrics,
    verification,
    wsTickets: new WsTickets(sharedState),
    blockMirror: new BlockMirror(sharedState),
    userEvents: new UserEventStream(sharedState, {
      retainCount: config.realtime.replayEvents,
      retentionMs: config.realtime.replayRetentionMs,
    }),
    userConnections: new UserConnections(sharedState),
    channelPosts: new ChannelPostStream(sharedState, {
      retainCount: config.channels.replayPosts,
      retentionMs: config.channels.replayRetentionMs,
    }),
    channelFollows: new ChannelFollows(sharedState),
    sessionConnections: new SessionConnections(sharedState),
    // Push wake-ups come from every role (ws pods: incoming calls); api pods drain the queue.
    pushQueue,
    wakeUps: new WakeUps(pushQueue, logger, outages),
  };
}

export type SharedParts = Awaited<ReturnType<typeof buildSharedParts>>;
