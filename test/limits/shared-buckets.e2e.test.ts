/**
 * Two service processes sharing one Redis draw from one bucket: a client that spent its
 * sign-in burst on one pod is refused by the other.
 */
import { requestFrom } from '../support/http-from.js';
import { startTestService } from '../support/start-service.js';
import type { TestService } from '../support/start-service.js';
import { TestUser } from '../support/wallet.js';
import { deleteKeys, uniqueTestPrefix, withRedis } from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('shared-buckets');
  let first: TestService;
  let second: TestService;
  beforeAll(async () => {
    const shared = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, RATE_LIMITS_ENABLED: 'true' };
    first = await startTestService(shared);
    second = await startTestService(shared);
  });
  afterAll(async () => {
    await Promise.all([first?.stop(), second?.stop()]);
    await deleteKeys(redisUrl, prefix);
  });

  const initializeOn = async (service: TestService, client: string) =>
    (await requestFrom(`${service.baseUrl}/api/v1/initialize`, client, { method: 'POST', json: await new TestUser().initializeBody('register') })).status;

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
