/**
 * The HTTP port of every role: the operational paths (health, metrics, and Swagger and the
 * reference web app where the API is served), the REST gateway of the API role, and the /ws upgrade of the realtime role.
 */
import type { Config } from '../platform/config/settings.js';
import { DEFAULT_WEB_APP_DIR, createWebApp } from '../ops/web-app/web-app-files.js';
import { startHttpServer } from '../server/http-server.js';
import type { RunningHttpServer } from '../server/http-server.js';
import type { ApiRole } from './api-role.js';
import { httpDispatch } from './http-dispatch.js';
import { swaggerFor } from './infrastructure-services.js';
import type { ProcessPorts } from './process-ports.js';
import type { RealtimeRole } from './realtime-role.js';
import type { SharedParts } from './shared-parts.js';

export function startHttpListener(
  config: Config,
  ports: ProcessPorts,
  shared: SharedParts,
  api: ApiRole | undefined,
  realtime: RealtimeRole | undefined,
): Promise<RunningHttpServer> {
  const { http } = config;
  const gateway = api?.gateway;
  return startHttpServer({
    host: http.host,
    port: http.port,
    maxBodyBytes: http.maxBodyBytes,
    maxBodyBytesOf: gateway ? (method, path) => gateway.maxRequestBytes(method, path) : undefined,
    streamsBody: gateway
      ? (method, path, headers) => gateway.streamsBody(method, path, headers)
      : undefined,
    trustedProxies: http.trustedProxies,
    logger: ports.logger,
    metrics: ports.metrics,
    dispatch: httpDispatch(
      {
        readiness: ports.readiness,
        metrics: ports.metrics,
        swagger: api ? swaggerFor(api.routes) : undefined,
        webApp: api
          ? createWebApp({
              directory: config.webApp.directory ?? DEFAULT_WEB_APP_DIR,
              serviceName: config.service.name,
            })
          : undefined,
      },
      gateway,
      shared.limits.opsIpLimit,
    ),
    attach: realtime ? (app) => realtime.attach(app) : undefined,
  });
}
