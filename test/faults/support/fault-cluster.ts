/**
 * The deployments the fault suite breaks (test/support/private-deployment.ts), as real child
 * processes of the built service:
 *
 * - `startSingleProcess()`: one `ROLE=all` process on the embedded store and in-process shared
 *   state (`npm start` as shipped), whose kill -9 loses everything it held in memory.
 * - `startCluster()`: one `api` process (the embedded store's owner) and two `ws` pods on a
 *   Redis of the test's own, which the test may stop, empty or freeze.
 *
 * Rate limits are on, as in production (their Redis fail modes are part of an outage), with
 * buckets wide enough for a load generator that sends everything from 127.0.0.1.
 */
import {
  startPrivateDeployment,
  startSingleProcess as startOneProcess,
} from '../../support/private-deployment.js';
import type { Deployment } from '../../support/private-deployment.js';
import type { PrivateRedis } from '../../support/private-redis.js';

/** A deployment under fault; `redis`, present on the cluster, is the Redis the test may fault. */
export type FaultCluster = Deployment & { readonly redis?: PrivateRedis };

const wide = { limit: 1_000_000, burst: 100_000 };
/** The per-RPC buckets the fault suite and the soak (test/soak) call from one address. */
const busyRpcs = [
  'AuthService.Initialize',
  'AuthService.RefreshToken',
  'MessagesService.SendMessage',
  'MessagesService.SendFile',
  'MessagesService.ListMessages',
  'MessagesService.ListChats',
  'MessagesService.EditMessage',
  'MessagesService.ReactToMessage',
  'MediaService.UploadMedia',
  'KeysService.GetKeyBundle',
  'GroupsService.CreateGroup',
  'ChannelsService.CreateChannel',
  'ContactsService.BlockContact',
];
/** The settings of every process of a deployment under fault (exported for test/soak). */
export const faultSettings = {
  // The store is the suite's own, whatever the test run's environment names (npm test in CI may
  // set MONGODB_URL): empty means unset. Shared state is too (REDIS_URL is set by the launcher).
  MONGODB_URL: '',
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    ip: wide,
    user: wide,
    auth: wide,
    default: wide,
    ...Object.fromEntries(busyRpcs.map((rpc) => [rpc, wide])),
  }),
};

export const startSingleProcess = (): Promise<FaultCluster> => startOneProcess(faultSettings);

export const startCluster = (): Promise<FaultCluster> =>
  startPrivateDeployment('cluster', faultSettings);
