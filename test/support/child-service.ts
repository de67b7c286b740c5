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
import { freePort, waitUntilReady } from './ports.js';

export interface ChildService {
  readonly baseUrl: string;
  readonly process: ChildProcess;
  /** Everything the process wrote to stdout (its JSON log lines). */
  output(): string;
  /** SIGTERM, then waits for the exit; returns the exit code. */
  stop(): Promise<number | null>;
}

export async function startChildService(env: Record<string, string>): Promise<ChildService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-child-'));
  const port = await freePort();
  const child = spawn(process.execPath, [builtMain], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), GRPC_PORT: String(await freePort()), DATA_DIR: dataDir, LOG_LEVEL: 'warn', SHUTDOWN_TIMEOUT_MS: '3000', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  void exited.then(() => rmSync(dataDir, { recursive: true, force: true }));
  const baseUrl = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${baseUrl}/health/ready`);
  } catch (error) {
    child.kill('SIGKILL');
    throw new Error(`child service did not start: ${String(error)}\n${output}`);
  }
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
