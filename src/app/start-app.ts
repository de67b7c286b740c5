/**
 * The composition root: the only place that builds the areas and connects them. It starts the
 * parts of the service that this process's role runs, and stops them in the right order.
 *
 * 1. The process's ports (process-ports.ts): metrics, the outage log, shared state, the store
 *    for the roles that serve the API, the readiness report.
 * 2. What every role shares (shared-parts.ts): limits, metrics, token verification and /ws
 *    tickets, the block mirror, the event streams and announcements, the push queue and its
 *    `WakeUps`.
 * 3. With a store, the API (api-role.ts): the key directory, the areas (api-areas.ts), the
 *    mirror keeper and the areas' background tasks, the RPC pipeline, the REST gateway and gRPC.
 * 4. For roles all and ws, the /ws tier (realtime-role.ts).
 * 5. The HTTP port (http-listener.ts); shutdown.ts stops it all.
 */
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import { startApiRole } from './api-role.js';
import { startHttpListener } from './http-listener.js';
import { openProcessPorts } from './process-ports.js';
import { buildRealtimeRole } from './realtime-role.js';
import { buildSharedParts } from './shared-parts.js';
import { shutDown } from './shutdown.js';

export interface RunningApp {
  readonly httpPort: number;
  /** Undefined for the ws role, which has no RPC port. */
  readonly grpcPort: number | undefined;
  shutdown(): Promise<void>;
}

export async function startApp(config: Config, logger: Logger): Promise<RunningApp> {
  const { role, shutdownTimeoutMs } = config.process;
  const ports = await openProcessPorts(config, logger);
  const shared = await buildSharedParts(config, ports);
  const api = ports.store ? await startApiRole(config, ports, shared, ports.store) : undefined;
  const realtime = role !== 'api' ? buildRealtimeRole(config, ports, shared) : undefined;
  const http = await startHttpListener(config, ports, shared, api, realtime);
  logger.info({ role, httpPort: http.port, grpcPort: api?.grpc.port }, 'service started');
  return {
    httpPort: http.port,
    grpcPort: api?.grpc.port,
    shutdown: () => shutDown({ ports, api, realtime, http, shutdownTimeoutMs }),
  };
}
