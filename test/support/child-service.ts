/**
 * The built service (test/global-setup.mjs) as a real child process: its own pid, event loop
 * and connections, as a pod has. Used where a test needs several processes (a cluster of
 * roles) or must kill one.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { builtMain } from './built-service.js';
import { waitUntilReady } from './ports.js';

export interface ChildService {
  readonly baseUrl: string;
  readonly process: ChildProcess;
  /** Everything the process wrote to stdout (its JSON log lines). */
  output(): string;
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
}

/**
 * `dataDir` reuses a directory the caller owns (to restart on the same data after a kill); it
 * is left in place when the process ends. Without it a fresh one is made and removed.
 */
export async function startChildService(env: Record<string, string>, options: { dataDir?: string } = {}): Promise<ChildService> {
  const dataDir = options.dataDir ?? mkdtempSync(path.join(tmpdir(), 'svc-child-'));
  // Port 0: the process binds a free port itself and logs it. Choosing ports here for several
  // processes started at once could hand two of them the same one (uWS binds with SO_REUSEPORT,
  // so both would serve it).
  const child = spawn(process.execPath, [builtMain], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: '0', GRPC_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '3000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const started = new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      output += chunk;
      const line = /^.*"msg":"service started".*$/m.exec(output);
      if (line) resolve((JSON.parse(line[0]) as { httpPort: number }).httpPort);
    });
    child.once('exit', (code) => reject(new Error(`child service exited (${code}) before starting:\n${output}`)));
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  if (!options.dataDir) void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  const baseUrl = `http://127.0.0.1:${await started}`;
  await waitUntilReady(`${baseUrl}/health/ready`);
  return {
    baseUrl,
    process: child,
    output: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}
