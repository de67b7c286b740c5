/**
 * The deployed shape for a test file: one api process (REST, store) and two ws pods as child
 * processes on one real Redis, under a key prefix of the file's own (removed afterwards), with
 * real WebSocket clients closed after the tests. Call inside `withRedis`.
 *
 *   const cluster = clusterForThisFile(redisUrl, 'relay');
 *   const device = await cluster.connect(session, cluster.ws2);
 */
import { generateKeyPairSync } from 'node:crypto';
import { deleteKeys, uniqueTestPrefix } from '../platform/shared-state/redis-for-tests.js';
import { startChildService } from './child-service.js';
import type { ChildService } from './child-service.js';
import { RealtimeClient } from './realtime-client.js';
import type { Api } from './session-api.js';
import { serviceForThisFile } from './service-for-tests.js';
import type { SignedIn } from './wallet.js';

export interface ClusterUnderTest {
  /** The key prefix of this file's processes in Redis. */
  readonly prefix: string;
  readonly apiPod: ChildService;
  readonly api: Api;
  readonly ws1: ChildService;
  readonly ws2: ChildService;
  /** Opens /ws on a ws pod with a ticket from the api pod (closed after the file's tests). */
  connect(session: SignedIn, pod: ChildService): Promise<RealtimeClient>;
}

export function clusterForThisFile(redisUrl: string, label: string): ClusterUnderTest {
  const prefix = uniqueTestPrefix(label);
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const shared = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    JWT_SIGNING_KEY: signingKey,
    RATE_LIMITS_ENABLED: 'false',
  };
  const api = serviceForThisFile(
    { ...shared, ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' },
    { start: startChildService },
  );
  const ws1 = serviceForThisFile({ ...shared, ROLE: 'ws' }, { start: startChildService });
  const ws2 = serviceForThisFile({ ...shared, ROLE: 'ws' }, { start: startChildService });
  const clients: RealtimeClient[] = [];
  afterAll(async () => {
    for (const client of clients) client.close();
    await deleteKeys(redisUrl, prefix);
  });
  return {
    prefix,
    apiPod: api.service,
    api: api.api,
    ws1: ws1.service,
    ws2: ws2.service,
    async connect(session, pod) {
      const client = await RealtimeClient.connect(
        api.service.baseUrl,
        pod.baseUrl,
        session.accessToken,
      );
      clients.push(client);
      return client;
    },
  };
}
