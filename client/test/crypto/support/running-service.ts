/**
 * The service as a real child process, for the SDK's interoperation tests: the build of this
 * test run (test/global-setup.mjs compiles src/ into .test-build/, or TEST_BUILD_DIR), one node
 * on a fresh DATA_DIR, the embedded store and in-process shared state (its default single-node
 * mode), on ports it picks itself. The SDK reaches it only over HTTP and WebSocket, as an app does.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RunningService {
  readonly baseUrl: string;
  readonly dataDir: string;
  stop(): Promise<void>;
}

const builtMain = fileURLToPath(
  new URL(`../../../../${process.env.TEST_BUILD_DIR ?? '.test-build'}/main.js`, import.meta.url),
);

async function waitUntilReady(url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const ready = await fetch(url).then(
      (response) => response.ok,
      () => false,
    );
    if (ready) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become ready within ${timeoutMs} ms`);
}

export async function startRunningService(): Promise<RunningService> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'sdk-e2ee-'));
  const child = spawn(process.execPath, [builtMain], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: '0',
      GRPC_PORT: '0',
      DATA_DIR: dataDir,
      REDIS_URL: '',
      RATE_LIMITS_ENABLED: 'false',
      LOG_LEVEL: 'info',
      SHUTDOWN_TIMEOUT_MS: '3000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let output = '';
  const httpPort = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = /^.*"msg":"service started".*$/m.exec(output);
      if (line) resolve((JSON.parse(line[0]) as { httpPort: number }).httpPort);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) =>
      reject(new Error(`service exited (${code}) before starting:\n${output}`)),
    );
  });
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  await waitUntilReady(`${baseUrl}/health/ready`);
  return {
    baseUrl,
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
