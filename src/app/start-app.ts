/**
 * Starts the parts of the service that this process's role runs, and stops them in the right
 * order: stop taking work, finish in-flight work, then close storage (which flushes it).
 */
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import { createMetrics } from '../platform/metrics/metrics.js';
import { openStore } from '../platform/store/open-store.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { openSharedState } from '../platform/shared-state/open-shared-state.js';
import { observeRpc } from '../platform/rpc/observe-rpc.js';
import { apiServices } from '../platform/api/api-services.js';
import { buildRouteTable } from '../gateway/routing/route-table.js';
import { RestGateway } from '../gateway/rest-gateway.js';
import { Readiness } from '../ops/readiness.js';
import type { DependencyCheck } from '../ops/readiness.js';
import { startHttpServer } from '../server/http-server.js';
import type { RunningHttpServer } from '../server/http-server.js';
import { startGrpcServer } from '../grpc/grpc-server.js';
import type { RunningGrpcServer } from '../grpc/grpc-server.js';
import { apiImplementations } from './api-implementations.js';
import { buildApiPipeline } from './api-pipeline.js';
import { httpDispatch } from './http-dispatch.js';
import { registerGrpcInfrastructure, swaggerFor } from './infrastructure-services.js';
import { authenticate } from '../identity/auth/authenticate.js';
import { createIdentity } from '../identity/identity-area.js';
import { createTokenVerification } from '../identity/tokens/token-verification.js';
import { createMessaging } from '../messaging/messaging-area.js';
import { UserEventStream } from '../realtime/events/user-event-stream.js';
import { createRealtimeTier } from '../realtime/realtime-area.js';
import { RateLimiter } from '../limits/rate-limiter.js';
import { captchaGate } from '../limits/captcha/captcha-gate.js';
import { createCaptchaVerifier } from '../limits/captcha/captcha-verifier.js';
import { limitByCaller, limitByIp, opsIpLimit } from '../limits/rate-limit-middleware.js';
import { parseLimitOverrides } from '../platform/config/limit-overrides.js';

export interface RunningApp {
  readonly httpPort: number;
  /** Undefined for the ws role, which has no RPC port. */
  readonly grpcPort: number | undefined;
  shutdown(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  // Checked before anything is opened: the overrides name RPCs, so loadConfig cannot check them.
  const overrides = parseLimitOverrides(config.rateLimitOverrides);
  const servesApi = config.role !== 'ws';
  const servesWebSockets = config.role !== 'api';
  const metrics = createMetrics();
  const sharedState = await openSharedState({ redisUrl: config.redisUrl, keyPrefix: config.redisKeyPrefix, logger });
  const store: DocumentStore | undefined = servesApi
    ? await openStore({ mongodbUrl: config.mongodbUrl, dataDir: config.dataDir, logger })
    : undefined;
  const checks: Record<string, DependencyCheck> = { shared_state: () => sharedState.ping() };
  if (store) checks.store = () => store.ping();
  const readiness = new Readiness(checks);

  const verification = await createTokenVerification(config, sharedState);
  const routes = servesApi ? buildRouteTable(apiServices) : [];
  const limiter = new RateLimiter(sharedState, { onDecision: (scope, outcome) => metrics.rateLimitDecisions.inc({ scope, outcome }) });
  const userEvents = new UserEventStream(sharedState, { retainCount: config.wsReplayEvents, retentionMs: config.wsReplayRetentionMs });
  let gateway: RestGateway | undefined;
  let grpc: RunningGrpcServer | undefined;
  if (store) {
    const identity = await createIdentity(config, store, sharedState, verification, logger);
    const captcha =
      config.captchaProvider === 'off'
        ? []
        : [captchaGate(createCaptchaVerifier({ provider: config.captchaProvider, secret: config.captchaSecret ?? '', verifyUrl: config.captchaVerifyUrl }))];
    const middlewares = config.rateLimitsEnabled
      ? [observeRpc(metrics), limitByIp(limiter, metrics, overrides), ...captcha, authenticate(identity), limitByCaller(limiter, metrics, overrides)]
      : [observeRpc(metrics), ...captcha, authenticate(identity)];
    const messaging = await createMessaging(store, sharedState, userEvents, logger);
    const pipeline = buildApiPipeline(apiImplementations({ metrics, store, identity, messaging }), middlewares);
    gateway = new RestGateway(routes, pipeline.handlersByMethod, { legacySunset: config.legacySunset });
    grpc = await startGrpcServer({
      host: config.host,
      port: config.grpcPort,
      logger,
      maxBodyBytes: config.maxBodyBytes,
      trustedProxies: config.trustedProxies,
      routes: (router) => {
        pipeline.register(router);
        registerGrpcInfrastructure(router, readiness);
      },
    });
  }
  const realtime = servesWebSockets ? createRealtimeTier({ config, sharedState, verification, limiter, events: userEvents, metrics, logger }) : undefined;
  const http: RunningHttpServer = await startHttpServer({
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    trustedProxies: config.trustedProxies,
    logger,
    metrics,
    dispatch: httpDispatch(
      { readiness, metrics, swagger: servesApi ? swaggerFor(routes) : undefined },
      gateway,
      config.rateLimitsEnabled ? opsIpLimit(limiter, metrics, overrides) : undefined,
    ),
    attach: realtime ? (app) => realtime.attach(app) : undefined,
  });
  logger.info({ role: config.role, httpPort: http.port, grpcPort: grpc?.port }, 'service started');

  return {
    httpPort: http.port,
    grpcPort: grpc?.port,
    async shutdown() {
      readiness.startDraining();
      // WebSocket clients are told to reconnect elsewhere before the listener goes away.
      realtime?.closeAll();
      await Promise.all([http.close(config.shutdownTimeoutMs), grpc?.close(config.shutdownTimeoutMs)]);
      await store?.close();
      await sharedState.close();
      logger.info('service stopped');
    },
  };
}
