/**
 * The built service (test/global-setup.mjs) as a real child process: its own pid, event loop
 * and connections, as a pod has. Used where a test needs several processes (a cluster of
 * roles) or must kill one — and start it again on the same DATA_DIR, as a pod that crashed
 * comes back with its volume.
 *
 * A restarted process gets new ports, as a rescheduled pod gets a new address behind its
 * Service: the old HTTP port cannot be bound again for up to a minute after a kill -9 while
 * connections it had accepted linger in TIME_WAIT (uWebSockets.js does not set SO_REUSEADDR).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { builtMain } from './built-service.js';
import { waitUntilReady } from './ports.js';

export interface ChildService {
  /** Where the process answers now (it changes with `restart()`). */
  readonly baseUrl: string;
  /** The running process (a new one after `restart()`). */
  readonly process: ChildProcess;
  /** Everything the process wrote to stdout and stderr (its JSON log lines), across restarts. */
  output(): string;
  /** SIGTERM, then waits for the exit and removes the DATA_DIR it made; returns the exit code. */
  stop(): Promise<number | null>;
  /** kill -9: no drain, no flush. The DATA_DIR stays, for `restart()`. */
  kill(): Promise<void>;
  /** Starts the service again on its DATA_DIR (on new ports), and waits until it is ready. */
  restart(): Promise<void>;
}

/**
 * Bounds on a start and a stop, so that a process that hangs fails its test with its own log
 * instead of holding the test run until jest's timeout (which says nothing of why). A loaded CI
 * machine has taken a minute to start a process; a stop is bounded by the service's own
 * deadline (SHUTDOWN_TIMEOUT_MS + 8 s, src/app/shutdown.ts).
 */
const START_MS = 120_000;
const STOP_MS = 60_000;

/** `work`, or an error with `onTimeout`'s message (after it ran) once `ms` have passed. */
async function within<T>(ms: number, work: Promise<T>, onTimeout: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(onTimeout())), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The last lines of a process's output, for an error message. */
function tail(output: string): string {
  return output.split('\n').slice(-40).join('\n');
}

interface Launched {
  readonly child: ChildProcess;
  readonly httpPort: Promise<number>;
  readonly exited: Promise<number | null>;
}

/**
 * `dataDir` reuses a directory the caller owns; it is left in place when the process ends.
 * Without it a fresh one is made, kept across `kill()`/`restart()`, and removed by `stop()`.
 */
export async function startChildService(
  env: Record<string, string>,
  options: { dataDir?: string } = {},
): Promise<ChildService> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-child-'));
  let output = '';
  // Port 0: the process binds a free port itself and logs it. Choosing ports here for several
  // processes started at once could hand two of them the same one (uWS binds with SO_REUSEPORT,
  // so both would serve it).
  const launch = (): Launched => {
    const child = spawn(process.execPath, [builtMain], {
      env: {
        ...process.env,
        HOST: '127.0.0.1',
        PORT: '0',
        GRPC_PORT: '0',
        DATA_DIR: dataDir,
        LOG_LEVEL: 'info',
        SHUTDOWN_TIMEOUT_MS: '3000',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let own = '';
    const httpPort = new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        own += chunk;
        const line = /^.*"msg":"service started".*$/m.exec(own);
        if (line) resolve((JSON.parse(line[0]) as { httpPort: number }).httpPort);
      });
      child.once('exit', (code) =>
        reject(new Error(`child service exited (${code}) before starting:\n${own}`)),
      );
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      own += chunk;
    });
    const exited = new Promise<number | null>((resolve) =>
      child.once('exit', (code) => resolve(code)),
    );
    return { child, httpPort, exited };
  };

  let current = launch();
  let baseUrl = '';
  const ready = async () => {
    const port = await within(START_MS, current.httpPort, () => {
      current.child.kill('SIGKILL');
      return `child service did not start within ${START_MS} ms:\n${tail(output)}`;
    });
    baseUrl = `http://127.0.0.1:${port}`;
    await waitUntilReady(`${baseUrl}/health/ready`);
  };
  await ready();
  return {
    get baseUrl() {
      return baseUrl;
    },
    get process() {
      return current.child;
    },
    output: () => output,
    async stop() {
      if (current.child.exitCode === null && current.child.signalCode === null)
        current.child.kill('SIGTERM');
      const code = await within(STOP_MS, current.exited, () => {
        current.child.kill('SIGKILL');
        return `child service did not exit within ${STOP_MS} ms of SIGTERM:\n${tail(output)}`;
      });
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
    async kill() {
      current.child.kill('SIGKILL');
      await current.exited;
    },
    async restart() {
      current = launch();
      await ready();
    },
  };
}
