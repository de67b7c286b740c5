/**
 * The two shapes the service runs in, each on a Redis of its own (private-redis.ts) so that a
 * test may stop, empty or freeze it: one process (`ROLE=all`), or the cluster of one `api` and
 * two `ws` processes. Both are real child processes of the built service. Tests of a defect
 * that involves shared state run the same steps on both (`describe.each(DEPLOYMENTS)`).
 */
import { generateKeyPairSync } from 'node:crypto';
import { startChildService } from './child-service.js';
import { RealtimeClient } from './realtime-client.js';
import { Api } from './session-api.js';
import type { ChildService } from './child-service.js';
import { startPrivateRedis } from './private-redis.js';
import type { PrivateRedis } from './private-redis.js';

export type DeploymentShape = 'single process' | 'cluster';
export const DEPLOYMENTS: readonly DeploymentShape[] = ['single process', 'cluster'];

export interface PrivateDeployment {
  readonly redis: PrivateRedis;
  /** Where REST requests go (the api process, or the single process). */
  readonly apiUrl: string;
  /** Where `/ws` is served: two ws pods, or the single process once. */
  readonly wsUrls: readonly string[];
  readonly processes: readonly ChildService[];
  /** Everything the processes logged, as parsed JSON lines (other lines are skipped). */
  logLines(): Record<string, any>[];
  stop(): Promise<void>;
}

export async function startPrivateDeployment(shape: DeploymentShape, env: Record<string, string> = {}): Promise<PrivateDeployment> {
  const redis = await startPrivateRedis();
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const shared = { REDIS_URL: redis.url, REDIS_KEY_PREFIX: 'svc:', JWT_SIGNING_KEY: signingKey, RATE_LIMITS_ENABLED: 'false', ...env };
  const processes =
    shape === 'single process'
      ? [await startChildService({ ...shared, ROLE: 'all' })]
      : await Promise.all([
          startChildService({ ...shared, ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' }),
          startChildService({ ...shared, ROLE: 'ws' }),
          startChildService({ ...shared, ROLE: 'ws' }),
        ]);
  const [api, ...wsPods] = processes as [ChildService, ...ChildService[]];
  return {
    redis,
    apiUrl: api.baseUrl,
    wsUrls: shape === 'single process' ? [api.baseUrl] : wsPods.map((pod) => pod.baseUrl),
    processes,
    logLines: () => processes.flatMap((each) => each.output().split('\n').flatMap(parseLine)),
    async stop() {
      redis.thaw();
      await Promise.all(processes.map((each) => each.stop()));
      await redis.stop();
    },
  };
}

function parseLine(line: string): Record<string, any>[] {
  if (!line.startsWith('{')) return [];
  try {
    return [JSON.parse(line) as Record<string, any>];
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
export function deploymentForThisBlock(shape: DeploymentShape, env: Record<string, string> = {}): RunningDeployment {
  const clients: RealtimeClient[] = [];
  const running = {
    connect: async (accessToken: string, wsUrl: string) => {
      const client = await RealtimeClient.connect(running.deployment.apiUrl, wsUrl, accessToken);
      clients.push(client);
      return client;
    },
  } as { deployment: PrivateDeployment; api: Api; connect: RunningDeployment['connect'] };
  beforeAll(async () => {
    running.deployment = await startPrivateDeployment(shape, env);
    running.api = new Api(running.deployment.apiUrl);
  }, 60_000);
  afterAll(async () => {
    for (const client of clients) client.close();
    await running.deployment?.stop();
  });
  return running;
}

/** Polls `probe` until it returns something other than undefined (at most `timeoutMs`). */
export async function eventually<T>(probe: () => Promise<T | undefined>, timeoutMs = 15_000, what = 'the condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await probe();
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`${what} did not hold within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
