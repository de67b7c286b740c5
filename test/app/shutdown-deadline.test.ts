/**
 * The stop's deadline (src/app/shutdown.ts): a background task whose stop never ends fails the
 * shutdown after SHUTDOWN_TIMEOUT_MS + AFTER_DRAIN_MS, naming the task, instead of keeping the
 * process alive; a stop that ends in time resolves and clears its timer.
 */
import { jest } from '@jest/globals';
import type { ApiRole } from '../../src/app/api-role.js';
import type { ProcessPorts } from '../../src/app/process-ports.js';
import { AFTER_DRAIN_MS, ShutdownDeadlineError, shutDown } from '../../src/app/shutdown.js';
import type { RunningParts } from '../../src/app/shutdown.js';
import type { RunningHttpServer } from '../../src/server/http-server.js';

class StuckSweeper {
  start(): void {}
  stop(): Promise<void> {
    return new Promise(() => undefined);
  }
}

class QuickDispatcher {
  start(): void {}
  async stop(): Promise<void> {}
}

const done = async () => undefined;
const info = jest.fn();

function parts(tasks: { start(): void; stop(): Promise<void> }[]): RunningParts {
  const ports = {
    readiness: { startDraining: () => undefined },
    store: { close: done },
    sharedState: { close: done },
    tracing: { shutdown: done },
    logger: { info },
  } as unknown as ProcessPorts;
  const api = {
    mirrors: { stop: done },
    grpc: { close: done },
    keyDirectory: { close: done },
    backgroundTasks: tasks,
  } as unknown as ApiRole;
  const http = { close: done } as unknown as RunningHttpServer;
  return { ports, api, realtime: undefined, http, shutdownTimeoutMs: 1_000 };
}

afterEach(() => {
  jest.useRealTimers();
  info.mockClear();
});

it('fails at its deadline naming the background task that did not stop', async () => {
  jest.useFakeTimers();
  const outcome = shutDown(parts([new QuickDispatcher(), new StuckSweeper()])).catch(
    (error: unknown) => error,
  );
  await jest.advanceTimersByTimeAsync(1_000 + AFTER_DRAIN_MS - 1);
  let settled = false;
  void outcome.then(() => (settled = true));
  await Promise.resolve();
  expect(settled).toBe(false);

  await jest.advanceTimersByTimeAsync(1);
  const error = await outcome;
  expect(error).toBeInstanceOf(ShutdownDeadlineError);
  expect((error as ShutdownDeadlineError).step).toBe('background tasks (StuckSweeper)');
  expect(info).not.toHaveBeenCalledWith('service stopped');
});

it('resolves when every step ends, leaving no timer behind', async () => {
  jest.useFakeTimers();
  await shutDown(parts([new QuickDispatcher()]));
  expect(info).toHaveBeenCalledWith('service stopped');
  expect(jest.getTimerCount()).toBe(0);
});
