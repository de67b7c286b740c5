/**
 * A Redis server of the test's own, on a free port, for the tests that fault Redis: stop it,
 * bring it back empty, or freeze it. The shared Redis at 127.0.0.1:6379 belongs to every test
 * run on the machine and must never be faulted.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import net from 'node:net';
import { freePort } from './ports.js';

export interface PrivateRedis {
  readonly port: number;
  readonly url: string;
  /** Kills the server (SIGKILL): connections drop, nothing answers until `start()`. */
  stop(): Promise<void>;
  /** Starts it again on the same port. It keeps nothing on disk, so it comes back empty. */
  start(): Promise<void>;
  /** `stop()` then `start()`: a Redis that restarted and lost its data. */
  restartEmpty(): Promise<void>;
  /** SIGSTOP: the port still accepts connections but no command is answered. */
  freeze(): void;
  /** SIGCONT after `freeze()`. */
  thaw(): void;
}

export async function startPrivateRedis(): Promise<PrivateRedis> {
  const port = await freePort();
  let server: ChildProcess | undefined;

  const start = async () => {
    const child = spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--save',
        '',
        '--appendonly',
        'no',
        '--loglevel',
        'warning',
      ],
      {
        stdio: 'ignore',
      },
    );
    server = child;
    await waitForPort(port, child);
  };
  const stop = async () => {
    const child = server;
    server = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    async restartEmpty() {
      await stop();
      await start();
    },
    freeze: () => void server?.kill('SIGSTOP'),
    thaw: () => void server?.kill('SIGCONT'),
  };
}

export async function waitForPort(port: number, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`redis-server on port ${port} exited (${child.exitCode})`);
    if (await answersPing(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`redis-server on port ${port} did not answer within 10 s`);
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setTimeout(500);
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith('+PONG'));
    });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
  });
}
