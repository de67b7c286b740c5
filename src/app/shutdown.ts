/**
 * Stopping a process in order: stop taking work, finish in-flight work, then close storage
 * (which flushes it).
 */
import type { RunningHttpServer } from '../server/http-server.js';
import type { ApiRole } from './api-role.js';
import type { ProcessPorts } from './process-ports.js';
import type { RealtimeRole } from './realtime-role.js';

export interface RunningParts {
  readonly ports: ProcessPorts;
  readonly api: ApiRole | undefined;
  readonly realtime: RealtimeRole | undefined;
  readonly http: RunningHttpServer;
  readonly shutdownTimeoutMs: number;
}

export async function shutDown({
  ports,
  api,
  realtime,
  http,
  shutdownTimeoutMs,
}: RunningParts): Promise<void> {
  ports.readiness.startDraining();
  // WebSocket clients are told to reconnect elsewhere before the listener goes away.
  realtime?.closeAll();
  const mirrorsStopped = api?.mirrors.stop();
  await Promise.all([http.close(shutdownTimeoutMs), api?.grpc.close(shutdownTimeoutMs)]);
  // After the last request (which may leave work for them), before storage closes; a mirror
  // copy in progress finishes too.
  await Promise.all([mirrorsStopped, ...(api?.backgroundTasks ?? []).map((task) => task.stop())]);
  await api?.keyDirectory.close();
  await ports.store?.close();
  await ports.sharedState.close();
  // Last: the spans of everything above are exported before the process exits.
  await ports.tracing.shutdown();
  ports.logger.info('service stopped');
}
