/**
 * SIGTERM on a real process: it stops accepting connections at once, reports not ready,
 * finishes the request in flight, flushes storage and exits 0.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { builtMain } from '../support/built-service.js';
import { freePort, waitUntilReady } from '../support/ports.js';

let child: ChildProcess;
let port: number;
let dataDir: string;
let output = '';

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(tmpdir(), 'svc-shutdown-'));
  port = await freePort();
  child = spawn(process.execPath, [builtMain], {
    env: {
      ...process.env,
      HOST: '127.0.0.1',
      PORT: String(port),
      GRPC_PORT: String(await freePort()),
      DATA_DIR: dataDir,
      SHUTDOWN_TIMEOUT_MS: '10000',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (chunk) => (output += chunk));
  await waitUntilReady(`http://127.0.0.1:${port}/health/ready`);
});
afterEach(() => {
  child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

const exited = () =>
  new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

it('finishes the in-flight request, refuses new connections, and exits 0', async () => {
  const body = JSON.stringify({ errors: [{ message: 'sent across a shutdown' }] });
  // A request whose body is still arriving is in flight: the server has begun it.
  const request = http.request({
    host: '127.0.0.1',
    port,
    method: 'POST',
    path: '/api/v1/errors',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  const response = new Promise<{ status: number; connection: string | undefined; text: string }>(
    (resolve, reject) => {
      request.on('response', (res) => {
        let text = '';
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode!, connection: res.headers.connection, text }),
        );
      });
      request.on('error', reject);
    },
  );
  request.write(body.slice(0, 10));
  await new Promise((resolve) => setTimeout(resolve, 100));

  const exit = exited();
  child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 300));
  const refused = await new Promise<boolean>((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
  expect(refused).toBe(true);

  request.end(body.slice(10));
  const answer = await response;
  expect(answer.status).toBe(200);
  expect(JSON.parse(answer.text)).toEqual({
    success: true,
    message: 'Errors recorded',
    accepted: 1,
  });
  expect(answer.connection).toBe('close');
  expect(await exit).toBe(0);
  expect(output).toContain('"msg":"service stopped"');
});

it('exits 0 on SIGTERM when idle, and releases its data directory', async () => {
  const exit = exited();
  child.kill('SIGTERM');
  expect(await exit).toBe(0);
  expect(output).toContain('"signal":"SIGTERM"');
});
