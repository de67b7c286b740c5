/**
 * Starts the whole service in this process on free ports, with a fresh DATA_DIR, exactly as
 * `npm start` wires it (role `all` unless told otherwise), and captures its log lines.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { startApp } from '../../src/app/start-app.js';
import type { RunningApp } from '../../src/app/start-app.js';
import { loadConfig } from '../../src/platform/config/load-config.js';
import { createLogger } from '../../src/platform/logging/logger.js';

export interface TestService {
  readonly app: RunningApp;
  readonly baseUrl: string;
  readonly grpcAddress: string;
  readonly dataDir: string;
  /** Parsed JSON log lines written so far. */
  readonly logs: Record<string, unknown>[];
  /** Shuts the service down (once: later calls wait for the first) and removes its DATA_DIR unless `keepData`. */
  stop(options?: { keepData?: boolean }): Promise<void>;
}

/**
 * `dataDir` reuses a directory (a restart); `keepData` leaves it in place on stop, so that a
 * test can run an operator command on it and start again.
 */
export async function startTestService(
  env: Record<string, string> = {},
  options: { dataDir?: string; keepData?: boolean } = {},
): Promise<TestService> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-test-'));
  // Rate limits are off unless a test turns them on: most suites sign in many times from
  // 127.0.0.1, which the 5-per-minute sign-in bucket would refuse; test/limits proves them.
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    GRPC_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    SHUTDOWN_TIMEOUT_MS: '2000',
    RATE_LIMITS_ENABLED: 'false',
    // This process runs src/ from TypeScript, where the compiled signature worker does not
    // exist: signers are recovered on the main thread. The worker threads are proven against
    // the built service (test/identity/signin/signature-check.e2e.test.ts).
    SIGNATURE_WORKERS: '0',
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line) logs.push(JSON.parse(line));
      done();
    },
  });
  const app = await startApp(config, createLogger(config.process.logLevel, sink));
  let stopping: Promise<void> | undefined;
  return {
    app,
    baseUrl: `http://127.0.0.1:${app.httpPort}`,
    grpcAddress: `127.0.0.1:${app.grpcPort}`,
    dataDir,
    logs,
    stop(stopOptions = {}) {
      stopping ??= app.shutdown().then(() => {
        if (!options.keepData && !stopOptions.keepData)
          rmSync(dataDir, { recursive: true, force: true });
      });
      return stopping;
    },
  };
}

/**
 * Runs `before` against a fresh service, restarts it on the same DATA_DIR (everything held only
 * in memory, in-process shared state included, is gone), then runs `after` with what `before`
 * returned.
 */
export async function acrossRestart<T>(
  before: (service: TestService) => Promise<T>,
  after: (service: TestService, carried: T) => Promise<void>,
): Promise<void> {
  const first = await startTestService({}, { keepData: true });
  let carried: T;
  try {
    carried = await before(first);
  } finally {
    await first.stop();
  }
  const second = await startTestService({}, { dataDir: first.dataDir });
  try {
    await after(second, carried);
  } finally {
    await second.stop();
  }
}
