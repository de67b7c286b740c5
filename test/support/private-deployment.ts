/**
 * The two shapes the service runs in, as real child processes of the built service: one
 * process (`ROLE=all`), or the cluster of one `api` (the embedded store's owner) and two `ws`
 * processes. `startPrivateDeployment` puts either on a Redis of its own (private-redis.ts) so
 * that a test may stop, empty or freeze it; tests of a defect that involves shared state run
 * the same steps on both (`describe.each(DEPLOYMENTS)`). `startSingleProcess` is `npm start` as
 * shipped: in-process shared state, lost with the process. The fault suite
 * (test/faults/support/fault-cluster.ts) starts its deployments here too.
 */
import { generateKeyPairSync } from 'node:crypto';
import { startChildService } from './child-service.js';
import type { ChildService } from './child-service.js';
import { startPrivateRedis } from './private-redis.js';
import { startPrivateRedisCluster } from './private-redis-cluster.js';
import type { PrivateRedisCluster } from './private-redis-cluster.js';
import type { PrivateRedis } from './private-redis.js';
import { RealtimeClient } from './realtime-client.js';
import { Api } from './session-api.js';
import { signIn } from './wallet.js';
import type { SignedIn } from './wallet.js';
import type { Json } from './json.js';

/** `cluster on Redis Cluster`: the cluster's processes on a private three-master Redis Cluster (REDIS_CLUSTER=true). */
export type DeploymentShape = 'single process' | 'cluster' | 'cluster on Redis Cluster';
export const DEPLOYMENTS: readonly DeploymentShape[] = ['single process', 'cluster'];
/**
 * The same and the Redis Cluster, for the flows that fault Redis (restart it empty, freeze it,
 * stop every node for seconds) and must come back the same way on the cluster.
 */
export const DEPLOYMENTS_AND_REDIS_CLUSTER: readonly DeploymentShape[] = [
  ...DEPLOYMENTS,
  'cluster on Redis Cluster',
];

export interface Deployment {
  /** The process that owns the store and serves REST (`all` or `api`). */
  readonly api: ChildService;
  /** The processes serving /ws: the single process itself, or the two ws pods. */
  readonly wsPods: readonly ChildService[];
  /** Every process once. */
  readonly processes: readonly ChildService[];
  /** Where REST requests go now (a restarted process answers on new ports). */
  readonly apiUrl: string;
  /** Where `/ws` is served now. */
  readonly wsUrls: readonly string[];
  /** A REST client of the api process where it answers now. */
  readonly http: Api;
  /** Registers a new user over REST (a real wallet signature). */
  signIn(): Promise<SignedIn>;
  /** Everything the processes logged, as parsed JSON lines (other lines are skipped). */
  logLines(): Record<string, Json>[];
  stop(): Promise<void>;
}

export interface PrivateDeployment extends Deployment {
  readonly redis: PrivateRedis;
  /** The same Redis as a cluster, on the `cluster on Redis Cluster` shape: one node can be faulted alone. */
  readonly redisCluster?: PrivateRedisCluster;
}

export interface PrivateDeploymentOptions {
  /**
   * The Redis URL of the cluster's ws pod number `index` (default: the deployment's Redis), e.g.
   * a proxy in front of it that can cut that pod off alone.
   */
  readonly wsPodRedisUrl?: (redis: PrivateRedis, index: number) => Promise<string>;
}

export const newSigningKey = () =>
  generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

/** Either shape on a Redis of its own. Rate limits are off unless `env` turns them on. */
export async function startPrivateDeployment(
  shape: DeploymentShape,
  env: Record<string, string> = {},
  options: PrivateDeploymentOptions = {},
): Promise<PrivateDeployment> {
  const onRedisCluster = shape === 'cluster on Redis Cluster';
  const redisCluster = onRedisCluster ? await startPrivateRedisCluster() : undefined;
  const redis = redisCluster ?? (await startPrivateRedis());
  const settings = {
    REDIS_URL: redis.url,
    REDIS_CLUSTER: String(onRedisCluster),
    REDIS_KEY_PREFIX: 'svc:',
    JWT_SIGNING_KEY: newSigningKey(),
    RATE_LIMITS_ENABLED: 'false',
    ...env,
  };
  const wsPodRedisUrls = await Promise.all(
    [0, 1].map((index) => options.wsPodRedisUrl?.(redis, index) ?? redis.url),
  );
  const processes = await launch(shape, settings, wsPodRedisUrls);
  const deployment = assemble(shape, processes, async () => {
    redis.thaw();
    await stopAll(processes);
    await (redisCluster?.dispose() ?? redis.stop());
  });
  return Object.assign(deployment, { redis, redisCluster });
}

/** One process on in-process shared state (`REDIS_URL` unset, whatever the test run's environment says). */
export async function startSingleProcess(env: Record<string, string> = {}): Promise<Deployment> {
  const processes = await launch('single process', {
    RATE_LIMITS_ENABLED: 'false',
    ...env,
    REDIS_URL: '',
  });
  return assemble('single process', processes, () => stopAll(processes));
}

function launch(
  shape: DeploymentShape,
  settings: Record<string, string>,
  wsPodRedisUrls: readonly string[] = [],
): Promise<ChildService[]> {
  if (shape === 'single process')
    return Promise.all([startChildService({ ...settings, ROLE: 'all' })]);
  const wsPod = (index: number) =>
    startChildService({
      ...settings,
      ROLE: 'ws',
      REDIS_URL: wsPodRedisUrls[index] ?? settings.REDIS_URL!,
    });
  return Promise.all([
    startChildService({ ...settings, ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' }),
    wsPod(0),
    wsPod(1),
  ]);
}

async function stopAll(processes: readonly ChildService[]): Promise<void> {
  await Promise.all(processes.map((each) => each.stop()));
}

function assemble(
  shape: DeploymentShape,
  processes: readonly ChildService[],
  stop: () => Promise<void>,
): Deployment {
  const [api, ...wsPods] = processes as [ChildService, ...ChildService[]];
  const servesWs = shape === 'single process' ? [api] : wsPods;
  return {
    api,
    wsPods: servesWs,
    processes,
    get apiUrl() {
      return api.baseUrl;
    },
    get wsUrls() {
      return servesWs.map((pod) => pod.baseUrl);
    },
    get http() {
      return new Api(api.baseUrl);
    },
    signIn: () => signIn(api.baseUrl),
    logLines: () => processes.flatMap((each) => each.output().split('\n').flatMap(parseLine)),
    stop,
  };
}

function parseLine(line: string): Record<string, Json>[] {
  if (!line.startsWith('{')) return [];
  try {
    return [JSON.parse(line) as Record<string, Json>];
  } catch {
    return [];
  }
}

export interface RunningDeployment {
  readonly deployment: PrivateDeployment;
  /** A REST client of its api process. */
  readonly api: Api;
  /** Opens /ws on `wsUrl` for the session (closed after the block's tests). */
  connect(accessToken: string, wsUrl: string): Promise<RealtimeClient>;
}

/** One deployment for the enclosing describe block: started before its tests, stopped after. */
export function deploymentForThisBlock(
  shape: DeploymentShape,
  env: Record<string, string> = {},
  options: PrivateDeploymentOptions = {},
): RunningDeployment {
  const clients: RealtimeClient[] = [];
  const running = {
    connect: async (accessToken: string, wsUrl: string) => {
      const client = await RealtimeClient.connect(running.deployment.apiUrl, wsUrl, accessToken);
      clients.push(client);
      return client;
    },
  } as { deployment: PrivateDeployment; api: Api; connect: RunningDeployment['connect'] };
  beforeAll(async () => {
    running.deployment = await startPrivateDeployment(shape, env, options);
    running.api = new Api(running.deployment.apiUrl);
  }, 120_000); // a Redis Cluster and three processes, on a machine other test runs load too
  afterAll(async () => {
    for (const client of clients) client.close();
    await running.deployment?.stop();
  });
  return running;
}

/** Polls `probe` until it returns something other than undefined (at most `timeoutMs`). */
export async function eventually<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
