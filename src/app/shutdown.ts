/**
 * Stopping a process in order: stop taking work, finish in-flight work, then close storage
 * (which flushes it). The whole stop has a deadline: a step that never ends (a background task
 * waiting on a dependency that does not answer) must not keep a terminating pod alive until the
 * orchestrator's SIGKILL, which would say nothing about why. Past the deadline the stop fails
 * naming the step it was in, and the process exits; what was acknowledged is already durable
 * (the store syncs before it answers), so exiting there loses no more than a kill -9 would.
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

/**
 * What the steps after the drain (background tasks, storage's flush, shared state, tracing) may
 * take beyond SHUTDOWN_TIMEOUT_MS. The chart's grace period leaves the drain plus 10 s after
 * SIGTERM (its preStop pause comes first, helm/messaging/templates/deployment.yaml): this
 * deadline comes before the orchestrator's SIGKILL.
 */
export const AFTER_DRAIN_MS = 8_000;

export class ShutdownDeadlineError extends Error {
  constructor(
    readonly step: string,
    deadlineMs: number,
  ) {
    super(`shutdown did not finish within ${deadlineMs} ms; still at: ${step}`);
  }
}

export async function shutDown(parts: RunningParts): Promise<void> {
  const progress = { step: 'draining' };
  const deadlineMs = parts.shutdownTimeoutMs + AFTER_DRAIN_MS;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new ShutdownDeadlineError(progress.step, deadlineMs)),
      deadlineMs,
    );
  });
  try {
    await Promise.race([stopInOrder(parts, progress), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function stopInOrder(
  { ports, api, realtime, http, shutdownTimeoutMs }: RunningParts,
  progress: { step: string },
): Promise<void> {
  ports.readiness.startDraining();
  // WebSocket clients are told to reconnect elsewhere before the listener goes away.
  realtime?.closeAll();
  const mirrorsStopped = api?.mirrors.stop();
  await Promise.all([http.close(shutdownTimeoutMs), api?.grpc.close(shutdownTimeoutMs)]);
  // After the last request (which may leave work for them), before storage closes; a mirror
  // copy in progress finishes too.
  await settleNamed(progress, 'background tasks', [
    ...(mirrorsStopped ? [['mirrors', mirrorsStopped] as const] : []),
    ...(api?.backgroundTasks ?? []).map((task) => [nameOf(task), task.stop()] as const),
  ]);
  progress.step = 'key directory';
  await api?.keyDirectory.close();
  progress.step = 'store';
  await ports.store?.close();
  progress.step = 'shared state';
  await ports.sharedState.close();
  // Last: the spans of everything above are exported before the process exits.
  progress.step = 'tracing';
  await ports.tracing.shutdown();
  ports.logger.info('service stopped');
}

/** Waits for every one of `work`, keeping `progress` to the names of those not yet done. */
async function settleNamed(
  progress: { step: string },
  what: string,
  work: readonly (readonly [string, Promise<void>])[],
): Promise<void> {
  const pending = new Set(work.map(([name]) => name));
  const describe = () => {
    progress.step = `${what} (${[...pending].join(', ')})`;
  };
  describe();
  await Promise.all(
    work.map(([name, done]) =>
      done.then(() => {
        pending.delete(name);
        describe();
      }),
    ),
  );
}

/** A task's class name: what the deadline's message names (the tasks have no other name). */
function nameOf(task: object): string {
  return task.constructor.name;
}
