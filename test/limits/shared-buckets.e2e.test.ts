/**
 * Two service processes sharing one Redis draw from one bucket: a client that spent its
 * sign-in burst on one pod is refused by the other.
 */
import { requestFrom } from '../support/http-from.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import type { TestService } from '../support/start-service.js';
import { TestUser } from '../support/wallet.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('shared-buckets');
  const shared = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, RATE_LIMITS_ENABLED: 'true' };
  const { service: first } = serviceForThisFile(shared);
  const { service: second } = serviceForThisFile(shared);
  afterAll(() => deleteKeys(redisUrl, prefix));

  const initializeOn = async (service: TestService, client: string) =>
    (
      await requestFrom(`${service.baseUrl}/api/v1/initialize`, client, {
        method: 'POST',
        json: await new TestUser().initializeBody('register'),
      })
    ).status;

  it('the sign-in burst of 2 is shared between the pods', async () => {
    const client = '127.0.9.9';
    expect(await initializeOn(first, client)).toBe(200);
    expect(await initializeOn(second, client)).toBe(200);
    expect(await initializeOn(first, client)).toBe(429);
    expect(await initializeOn(second, client)).toBe(429);
    // Another client is unaffected on either pod.
    expect(await initializeOn(second, '127.0.9.10')).toBe(200);
  });
});
