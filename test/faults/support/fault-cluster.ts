/**
 * The deployments the fault suite breaks, as real child processes of the built service:
 *
 * - `startSingleProcess()`: one `ROLE=all` process on the embedded store and in-process shared
 *   state (`npm start` as shipped), whose kill -9 loses everything it held in memory.
 * - `startCluster()`: one `api` process (the embedded store's owner) and two `ws` pods on a
 *   Redis of the test's own, which the test may stop, empty or freeze.
 *
 * Rate limits are on, as in production (their Redis fail modes are part of an outage), with
 * buckets wide enough for a load generator that sends everything from 127.0.0.1.
 */
import { generateKeyPairSync } from 'node:crypto';
import { startChildService } from '../../support/child-service.js';
import type { ChildService } from '../../support/child-service.js';
import { startPrivateRedis } from '../../support/private-redis.js';
import type { PrivateRedis } from '../../support/private-redis.js';
import { Api } from '../../support/session-api.js';
import { signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

export interface FaultCluster {
  /** The process that owns the store and serves REST (`all` or `api`). */
  readonly api: ChildService;
  /** The processes serving /ws: the single process itself, or the two ws pods. */
  readonly wsPods: readonly ChildService[];
  /** Present on the cluster: the Redis the test may fault. */
  readonly redis?: PrivateRedis;
  /** A REST client of the api process where it answers now. */
  readonly http: Api;
  /** Registers a new user over REST (a real wallet signature). */
  signIn(): Promise<SignedIn>;
  stop(): Promise<void>;
}

const wide = { limit: 1_000_000, burst: 100_000 };
const settings = {
  // The dependencies are the suite's own, whatever the test run's environment names (npm test
  // in CI sets REDIS_URL to the shared Redis, and may set MONGODB_URL): empty means unset.
  REDIS_URL: '',
  MONGODB_URL: '',
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_OVERRIDES: JSON.stringify({ ip: wide, user: wide, auth: wide, default: wide, 'AuthService.Initialize': wide, 'MessagesService.SendMessage': wide }),
};

const signingKey = () => generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();

export async function startSingleProcess(): Promise<FaultCluster> {
  const all = await startChildService({ ...settings, ROLE: 'all' });
  return assemble(all, [all], undefined);
}

export async function startCluster(): Promise<FaultCluster> {
  const redis = await startPrivateRedis();
  const shared = { ...settings, REDIS_URL: redis.url, JWT_SIGNING_KEY: signingKey() };
  const [api, ws1, ws2] = await Promise.all([
    startChildService({ ...shared, ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' }),
    startChildService({ ...shared, ROLE: 'ws' }),
    startChildService({ ...shared, ROLE: 'ws' }),
  ]);
  return assemble(api, [ws1!, ws2!], redis);
}

function assemble(api: ChildService, wsPods: ChildService[], redis: PrivateRedis | undefined): FaultCluster {
  return {
    api,
    wsPods,
    redis,
    get http() {
      return new Api(api.baseUrl);
    },
    signIn: () => signIn(api.baseUrl),
    async stop() {
      await Promise.all([...new Set([api, ...wsPods])].map((pod) => pod.stop()));
      await redis?.stop();
    },
  };
}
