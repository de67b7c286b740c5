/**
 * The composition root: the only place that builds the areas and connects them. It starts the
 * parts of the service that this process's role runs, and stops them in the right order: stop
 * taking work, finish in-flight work, then close storage (which flushes it).
 *
 * What every role shares is built here once: the ports (store, shared state, metrics, the
 * outage log), the token verification and /ws tickets, the block mirror, the users' event
 * streams and connection announcements, and the limits. A process with a store also opens the
 * key directory (a DHT node) with the keys area's record rules. The API's areas are built by
 * api-areas.ts, the /ws tier by its area factory. A process with a store also runs the mirror
 * keeper over the areas' shared-state mirrors (ended sessions, blocks), complete before the
 * first request is served, and the areas' background tasks (the sweeper of messages left
 * unannounced, the key-record re-publisher, the relay's drains on connection announcements,
 * the push dispatcher). Push wake-ups (`WakeUps`, over the shared push queue) are built for every
 * role: api areas wake recipients of messages, ws pods the callees of calls.
 */
import { BlockMirror } from '../contacts/block-mirror.js';
import { buildRouteTable } from '../gateway/routing/route-table.js';
import { RestGateway } from '../gateway/rest-gateway.js';
import { startGrpcServer } from '../grpc/grpc-server.js';
import type { RunningGrpcServer } from '../grpc/grpc-server.js';
import { optionalCaller } from '../identity/auth/caller.js';
import { WsTickets } from '../identity/sessions/ws-tickets.js';
import { createTokenVerification } from '../identity/tokens/token-verification.js';
import { KEY_RECORD_NAMESPACE, KeyRecordVerifier } from '../keys/directory/key-record-rules.js';
import { createKeysMetrics } from '../keys/keys-metrics.js';
import { createLocationMetrics } from '../location/location-metrics.js';
import { createAccountWalkMetrics } from '../account-lifecycle/account-walk-metrics.js';
import { createMediaMetrics } from '../media/media-metrics.js';
import { createLimitsArea } from '../limits/limits-area.js';
import { Readiness } from '../ops/readiness.js';
import { PushQueue } from '../push/delivery/push-queue.js';
import { WakeUps } from '../push/delivery/wake-ups.js';
import { createPushMetrics } from '../push/push-metrics.js';
import type { DependencyCheck } from '../ops/readiness.js';
import { apiServices } from '../platform/api/api-services.js';
import type { Config } from '../platform/config/settings.js';
import { openRecordDirectory } from '../platform/dht/open-record-directory.js';
import type { RecordDirectory } from '../platform/dht/record-directory.js';
import type { Logger } from '../platform/logging/logger.js';
import { OutageLog } from '../platform/logging/outage-log.js';
import { createMetrics } from '../platform/metrics/metrics.js';
import { observeRpc } from '../platform/rpc/observe-rpc.js';
import { MirrorKeeper } from '../platform/shared-state/mirror-keeper.js';
import { openSharedState } from '../platform/shared-state/open-shared-state.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { openStore } from '../platform/store/open-store.js';
import { MessagingEvents } from '../events/messaging-events.js';
import { ChannelFollows } from '../events/channel-follows.js';
import { ChannelPostStream } from '../events/channel-post-stream.js';
import { SessionConnections } from '../events/session-connections.js';
import { UserConnections } from '../events/user-connections.js';
import { UserEventStream } from '../events/user-event-stream.js';
import { createRealtimeArea } from '../realtime/realtime-area.js';
import { createRealtimeMetrics } from '../realtime/realtime-metrics.js';
import { startHttpServer } from '../server/http-server.js';
import type { RunningHttpServer } from '../server/http-server.js';
import { createFrontendErrorCounter } from '../system/frontend-errors.js';
import { buildApiAreas } from './api-areas.js';
import type { BackgroundTask } from './background-task.js';
import { buildApiPipeline } from './api-pipeline.js';
import { httpDispatch } from './http-dispatch.js';
import { registerGrpcInfrastructure, swaggerFor } from './infrastructure-services.js';

export interface RunningApp {
  readonly httpPort: number;
  /** Undefined for the ws role, which has no RPC port. */
  readonly grpcPort: number | undefined;
  shutdown(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const { http: httpSettings, process: processSettings } = config;
  const servesApi = processSettings.role !== 'ws';
  const servesWebSockets = processSettings.role !== 'api';

  // Ports.
  const metrics = createMetrics();
  const outages = new OutageLog(logger);
  const sharedState = await openSharedState({ redisUrl: config.sharedState.redisUrl, redisCluster: config.sharedState.cluster, keyPrefix: config.sharedState.keyPrefix, logger });
  const store: DocumentStore | undefined = servesApi
    ? await openStore({ mongodbUrl: config.store.mongodbUrl, mongodbAllowStandalone: config.store.mongodbAllowStandalone, dataDir: config.store.dataDir, logger })
    : undefined;
  const checks: Record<string, DependencyCheck> = { shared_state: () => sharedState.ping() };
  if (store) checks.store = () => store.ping();
  const readiness = new Readiness(checks);

  // Shared by every role. Every metric is registered whatever the role, so /metrics lists the same series everywhere.
  const frontendErrors = createFrontendErrorCounter(metrics.registry);
  const limits = createLimitsArea({
    settings: config.limits,
    captcha: config.captcha,
    sharedState,
    registry: metrics.registry,
    callerAddressOf: (context) => optionalCaller(context)?.address,
  });
  const realtimeMetrics = createRealtimeMetrics(metrics.registry);
  const keysMetrics = createKeysMetrics(metrics.registry);
  const locationMetrics = createLocationMetrics(metrics.registry);
  const accountWalkMetrics = createAccountWalkMetrics(metrics.registry);
  const pushMetrics = createPushMetrics(metrics.registry);
  const mediaMetrics = createMediaMetrics(metrics.registry);
  const verification = await createTokenVerification(config.tokens, config.store.dataDir, sharedState);
  const wsTickets = new WsTickets(sharedState);
  const blockMirror = new BlockMirror(sharedState);
  const userEvents = new UserEventStream(sharedState, { retainCount: config.realtime.replayEvents, retentionMs: config.realtime.replayRetentionMs });
  const userConnections = new UserConnections(sharedState);
  const channelPosts = new ChannelPostStream(sharedState, { retainCount: config.channels.replayPosts, retentionMs: config.channels.replayRetentionMs });
  const channelFollows = new ChannelFollows(sharedState);
  const sessionConnections = new SessionConnections(sharedState);
  // Push wake-ups come from every role (ws pods: incoming calls); api pods drain the queue.
  const pushQueue = new PushQueue(sharedState);
  const wakeUps = new WakeUps(pushQueue, logger, outages);

  const routes = servesApi ? buildRouteTable(apiServices) : [];
  let gateway: RestGateway | undefined;
  let grpc: RunningGrpcServer | undefined;
  let mirrors: MirrorKeeper | undefined;
  let backgroundTasks: readonly BackgroundTask[] = [];
  let keyDirectory: RecordDirectory | undefined;
  if (store) {
    const keyRecords = new KeyRecordVerifier(config.service.name);
    keyDirectory = await openRecordDirectory({
      settings: config.keys,
      host: httpSettings.host,
      namespace: KEY_RECORD_NAMESPACE,
      rules: keyRecords.rules(),
      logger,
    });
    const areas = await buildApiAreas({
      config,
      store,
      sharedState,
      logger,
      verification,
      wsTickets,
      blockMirror,
      events: new MessagingEvents(userEvents, logger),
      userEvents,
      userConnections,
      channelPosts,
      channelFollows,
      sessionConnections,
      pushQueue,
      wakeUps,
      pushMetrics,
      frontendErrors,
      smsNumberLimiter: limits.smsNumberLimiter,
      keyDirectory,
      keyRecords,
      keysMetrics,
      locationMetrics,
      accountWalkMetrics,
      mediaMetrics,
      outages,
    });
    // Before serving: the security mirrors in shared state are complete (or being repaired).
    mirrors = new MirrorKeeper(sharedState, areas.mirrors, logger, outages);
    await mirrors.start();
    backgroundTasks = areas.backgroundTasks;
    await Promise.all(backgroundTasks.map((task) => task.start()));
    const middlewares = [observeRpc(metrics, outages), ...limits.beforeAuthentication, areas.authentication, ...limits.afterAuthentication];
    const pipeline = buildApiPipeline(areas.implementations, middlewares);
    gateway = new RestGateway(routes, pipeline.handlersByMethod, { legacySunset: httpSettings.legacySunset });
    grpc = await startGrpcServer({
      host: httpSettings.host,
      port: httpSettings.grpcPort,
      logger,
      maxBodyBytes: httpSettings.maxBodyBytes,
      trustedProxies: httpSettings.trustedProxies,
      routes: (router) => {
        pipeline.register(router);
        registerGrpcInfrastructure(router, readiness);
      },
    });
  }
  const realtime = servesWebSockets
    ? createRealtimeArea({
        settings: config.realtime,
        sharedState,
        events: userEvents,
        connections: userConnections,
        channelPosts,
        channelFollows,
        sessionConnections,
        wakeCallee: (callee) => void wakeUps.wake([callee], { kind: 'call' }),
        tickets: wsTickets,
        verification,
        blockMirror,
        frameLimits: limits.wsFrameLimits,
        metrics: realtimeMetrics,
        logger,
        outages,
      })
    : undefined;
  const http: RunningHttpServer = await startHttpServer({
    host: httpSettings.host,
    port: httpSettings.port,
    maxBodyBytes: httpSettings.maxBodyBytes,
    maxBodyBytesOf: gateway ? (method, path) => gateway?.maxRequestBytes(method, path) : undefined,
    streamsBody: gateway ? (method, path, headers) => gateway?.streamsBody(method, path, headers) ?? false : undefined,
    trustedProxies: httpSettings.trustedProxies,
    logger,
    metrics,
    dispatch: httpDispatch({ readiness, metrics, swagger: servesApi ? swaggerFor(routes) : undefined }, gateway, limits.opsIpLimit),
    attach: realtime ? (app) => realtime.attach(app) : undefined,
  });
  logger.info({ role: processSettings.role, httpPort: http.port, grpcPort: grpc?.port }, 'service started');

  return {
    httpPort: http.port,
    grpcPort: grpc?.port,
    async shutdown() {
      readiness.startDraining();
      // WebSocket clients are told to reconnect elsewhere before the listener goes away.
      realtime?.closeAll();
      const mirrorsStopped = mirrors?.stop();
      await Promise.all([http.close(processSettings.shutdownTimeoutMs), grpc?.close(processSettings.shutdownTimeoutMs)]);
      // After the last request (which may leave work for them), before storage closes; a mirror
      // copy in progress finishes too.
      await Promise.all([mirrorsStopped, ...backgroundTasks.map((task) => task.stop())]);
      await keyDirectory?.close();
      await store?.close();
      await sharedState.close();
      logger.info('service stopped');
    },
  };
}
