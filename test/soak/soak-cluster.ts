/**
 * The cluster the soak runs: two ws processes and the api processes on a Redis of the soak's own
 * (or a three-master Redis Cluster with `REDIS_CLUSTER=true`), each process a real child of the
 * built service. On one Redis every process reaches it through a TCP proxy of its own, so that
 * one process alone can be cut off from Redis (a Redis Cluster hands its clients the nodes'
 * own addresses, so there the cut is not staged).
 *
 * Two api processes need one shared store: with `MONGODB_URL` they share a database of the
 * soak's own. Without it there is one api process, the owner of the embedded store (one process
 * only may hold a DATA_DIR, docs/platform/storage.md), and the report says so.
 *
 * An operator holding `admin:review_reports` (the suspensions' reviewer) is made as operators
 * make one: the account signs up, the first api process stops, `npm run admin -- grant` runs on
 * its store, and the process starts again, all before the load begins.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { builtModule } from '../support/built-service.js';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { freePort } from '../support/ports.js';
import { newSigningKey } from '../support/private-deployment.js';
import { startPrivateRedisCluster } from '../support/private-redis-cluster.js';
import type { PrivateRedisCluster } from '../support/private-redis-cluster.js';
import { startPrivateRedis } from '../support/private-redis.js';
import type { PrivateRedis } from '../support/private-redis.js';
import { Api } from '../support/session-api.js';
import { signIn, TestUser } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { startTcpProxy } from '../platform/shared-state/tcp-proxy.js';
import type { TcpProxy } from '../platform/shared-state/tcp-proxy.js';
import { faultSettings } from '../faults/support/fault-cluster.js';
import type { ApiEndpoint } from '../faults/support/realtime-device.js';
import type { SoakSettings } from './soak-settings.js';

export interface SoakProcess {
  /** `api1`, `api2`, `ws1`, `ws2`. */
  readonly name: string;
  readonly service: ChildService;
  /** Its way to Redis, when it can be cut alone. */
  readonly redisLink: TcpProxy | undefined;
}

export interface SoakCluster {
  readonly redis: PrivateRedis;
  readonly redisCluster: PrivateRedisCluster | undefined;
  readonly apis: readonly SoakProcess[];
  readonly wsPods: readonly SoakProcess[];
  readonly processes: readonly SoakProcess[];
  /** An api process, a different one at each read when there are several (a load balancer). */
  readonly api: ApiEndpoint;
  readonly http: Api;
  /** Holds `admin:review_reports`. */
  readonly reviewer: SignedIn;
  /** Registers a new user (a real wallet signature). */
  signIn(): Promise<SignedIn>;
  stop(): Promise<void>;
}

export async function startSoakCluster(settings: SoakSettings): Promise<SoakCluster> {
  const redisCluster = settings.redisCluster ? await startPrivateRedisCluster() : undefined;
  const redis = redisCluster ?? (await startPrivateRedis());
  const shared = {
    ...faultSettings,
    REDIS_URL: redis.url,
    REDIS_CLUSTER: String(settings.redisCluster),
    REDIS_KEY_PREFIX: 'soak:',
    JWT_SIGNING_KEY: newSigningKey(),
  };
  // The api processes' DATA_DIRs are the soak's own: they must outlive the stop that grants the reviewer.
  const apiSettings = (
    settings.mongodbUrl
      ? await sharedDatabaseApis(settings.mongodbUrl)
      : [{ ALLOW_EMBEDDED_STORE: 'true' }]
  ).map((own) => ({ ...own, DATA_DIR: mkdtempSync(path.join(tmpdir(), 'soak-api-')) }));
  const start = async (name: string, role: 'api' | 'ws', own: Record<string, string>) => {
    const redisLink = redisCluster ? undefined : await startTcpProxy(redis.url);
    const service = await startChildService(
      { ...shared, ...own, ROLE: role, REDIS_URL: redisLink?.url ?? redis.url },
      own.DATA_DIR ? { dataDir: own.DATA_DIR } : {},
    );
    return { name, service, redisLink };
  };
  const apis = await Promise.all(
    apiSettings.map((own, index) => start(`api${index + 1}`, 'api', own)),
  );
  const reviewer = await makeReviewer(apis[0]!.service, apiSettings[0]!);
  const wsPods = await Promise.all([1, 2].map((n) => start(`ws${n}`, 'ws', {})));
  const processes = [...apis, ...wsPods];
  let turn = 0;
  const api = {
    get baseUrl() {
      turn = (turn + 1) % apis.length;
      return apis[turn]!.service.baseUrl;
    },
  };
  return {
    redis,
    redisCluster,
    apis,
    wsPods,
    processes,
    api,
    http: new Api(() => api.baseUrl),
    reviewer,
    signIn: () => signIn(api.baseUrl),
    async stop() {
      redis.thaw();
      for (const each of processes) each.service.process.kill('SIGCONT');
      await Promise.all(processes.map((each) => each.service.stop()));
      await Promise.all(processes.map((each) => each.redisLink?.close()));
      await (redisCluster?.dispose() ?? redis.stop());
      for (const own of apiSettings) rmSync(own.DATA_DIR, { recursive: true, force: true });
    },
  };
}

const REVIEW_PERMISSION = 'admin:review_reports';

/**
 * Signs a new account up, grants it the review permission with the operator command on the
 * stopped api process's store (`store`: its DATA_DIR or MONGODB_URL), starts the process again
 * and signs the operator in.
 */
async function makeReviewer(api: ChildService, store: Record<string, string>): Promise<SignedIn> {
  const user = new TestUser();
  await signIn(api.baseUrl, user);
  await api.stop();
  await promisify(execFile)(
    process.execPath,
    [builtModule('cli/admin.js'), 'grant', user.address, REVIEW_PERMISSION],
    { env: { ...process.env, ...store } },
  );
  await api.restart();
  return signIn(api.baseUrl, user, 'sign-in');
}

/**
 * The settings of two api processes on one MongoDB database of the soak's own, joined in one
 * key directory (each one's DHT node lists the other's).
 */
async function sharedDatabaseApis(mongodbUrl: string): Promise<Record<string, string>[]> {
  const database = new URL(mongodbUrl);
  database.pathname = `/soak_${randomUUID().slice(0, 8)}`;
  const dhtPorts = [await freePort(), await freePort()];
  return dhtPorts.map((port, index) => ({
    MONGODB_URL: database.toString(),
    KEYS_DHT_PORT: String(port),
    KEYS_DHT_PEERS: `127.0.0.1:${dhtPorts[1 - index]}`,
  }));
}
