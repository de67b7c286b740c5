/**
 * A Redis Cluster of the test's own: three masters (no replicas) on free ports, with their
 * cluster files in a temporary directory, made one cluster by `redis-cli --cluster create`. It
 * can be faulted as a whole like a private Redis (stop, restart empty, freeze), or one node at a
 * time: a node restarted empty comes back with its slots (its cluster file) but none of its
 * data, as a shard that lost its memory. Everything is torn down by `dispose()`.
 */
import { spawn, execFile } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './ports.js';
import { waitForPort } from './private-redis.js';
import type { PrivateRedis } from './private-redis.js';

const run = promisify(execFile);

/** As a PrivateRedis, every node at once; `url` is a seed (the first node) for REDIS_URL with REDIS_CLUSTER=true. */
export interface PrivateRedisCluster extends PrivateRedis {
  /** The client ports of the masters. */
  readonly ports: readonly number[];
  /** Kills node `index` (SIGKILL) and starts it again with its slots but none of its data. */
  restartNodeEmpty(index: number): Promise<void>;
  /**
   * An outage of the whole cluster: kills every node at once, keeps them all down for `downMs`,
   * and starts them again with their slots but none of their data (resolves once the cluster is ok).
   */
  restartAllEmptyAfter(downMs: number): Promise<void>;
  /** Stops every node and removes their files. */
  dispose(): Promise<void>;
}

const MASTERS = 3;

export async function startPrivateRedisCluster(): Promise<PrivateRedisCluster> {
  const dir = await mkdtemp(path.join(tmpdir(), 'redis-cluster-'));
  const nodes = await Promise.all(
    Array.from({ length: MASTERS }, async () => ({
      port: await freePort(),
      busPort: await freePort(),
      server: undefined as ChildProcess | undefined,
    })),
  );

  const start = async (node: (typeof nodes)[number]) => {
    const args = [
      '--port',
      String(node.port),
      '--cluster-port',
      String(node.busPort),
      '--bind',
      '127.0.0.1',
      '--cluster-enabled',
      'yes',
    ];
    args.push(
      '--cluster-config-file',
      path.join(dir, `nodes-${node.port}.conf`),
      '--cluster-node-timeout',
      '2000',
      '--dir',
      dir,
    );
    args.push('--save', '', '--appendonly', 'no', '--loglevel', 'warning');
    node.server = spawn('redis-server', args, { stdio: 'ignore' });
    await waitForPort(node.port, node.server);
  };
  const kill = async (node: (typeof nodes)[number]) => {
    const child = node.server;
    node.server = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGCONT');
    child.kill('SIGKILL');
    await exited;
  };
  const startAll = async () => {
    await Promise.all(nodes.map(start));
    await Promise.all(nodes.map((node) => untilClusterOk(node.port)));
  };
  const restartOneEmpty = async (node: (typeof nodes)[number]) => {
    await kill(node);
    await start(node);
    await Promise.all(nodes.map((each) => untilClusterOk(each.port)));
  };
  const stopAll = () => Promise.all(nodes.map(kill)).then(() => undefined);
  const dispose = async () => {
    await stopAll();
    await rm(dir, { recursive: true, force: true });
  };
  const signalAll = (signal: NodeJS.Signals) => nodes.forEach((node) => node.server?.kill(signal));

  try {
    await Promise.all(nodes.map(start));
    await run('redis-cli', [
      '--cluster',
      'create',
      ...nodes.map((node) => `127.0.0.1:${node.port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    await Promise.all(nodes.map((node) => untilClusterOk(node.port)));
  } catch (error) {
    await dispose();
    throw error;
  }
  return {
    ports: nodes.map((node) => node.port),
    port: nodes[0]!.port,
    url: `redis://127.0.0.1:${nodes[0]!.port}`,
    stop: stopAll,
    start: startAll,
    // Every node restarted empty, one after the other (a rolling restart that loses all data);
    // the whole cluster down at once is restartAllEmptyAfter.
    async restartEmpty() {
      for (const node of nodes) await restartOneEmpty(node);
    },
    async restartAllEmptyAfter(downMs) {
      await stopAll();
      await new Promise((resolve) => setTimeout(resolve, downMs));
      await startAll();
    },
    freeze: () => signalAll('SIGSTOP'),
    thaw: () => signalAll('SIGCONT'),
    restartNodeEmpty: (index) => restartOneEmpty(nodes[index]!),
    dispose,
  };
}

/** Every node agrees the cluster serves all slots (the creation or a restart has settled). */
async function untilClusterOk(port: number): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    const { stdout } = await run('redis-cli', ['-p', String(port), 'cluster', 'info']).catch(
      () => ({ stdout: '' }),
    );
    if (stdout.includes('cluster_state:ok')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`Redis Cluster node ${port} did not reach cluster_state:ok within 20 s`);
}
