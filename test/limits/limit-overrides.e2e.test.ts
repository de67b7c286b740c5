/** The spec's numbers overridden by the operator (RATE_LIMIT_OVERRIDES), and bad overrides refused. */
import { ConfigError } from '../../src/platform/config/setting.js';
import { requestFrom } from '../support/http-from.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { startTestService } from '../support/start-service.js';
import { TestUser } from '../support/wallet.js';

describe('with overrides', () => {
  const overrides = { 'AuthService.Initialize': { burst: 3 }, ip: { limit: 10, burst: 4 } };
  const { service } = serviceForThisFile({
    RATE_LIMITS_ENABLED: 'true',
    RATE_LIMIT_OVERRIDES: JSON.stringify(overrides),
  });

  it('raises one RPC and the per-IP bucket as configured', async () => {
    const initialize = async () =>
      (
        await requestFrom(`${service.baseUrl}/api/v1/initialize`, '127.0.77.7', {
          method: 'POST',
          json: await new TestUser().initializeBody('register'),
        })
      ).status;
    expect([await initialize(), await initialize(), await initialize()]).toEqual([200, 200, 200]);
    const refused = await requestFrom(`${service.baseUrl}/api/v1/initialize`, '127.0.77.7', {
      method: 'POST',
      json: await new TestUser().initializeBody('register'),
    });
    // Still within the per-IP burst of 4: the endpoint's overridden burst of 3 refuses it, and
    // its limit (not overridden) stays the spec's 5.
    expect(refused.status).toBe(429);
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '5' });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++)
      statuses.push((await requestFrom(`${service.baseUrl}/api/v1/version`, '127.0.77.8')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
  });
});

it.each([
  ['{"NoSuch.Rpc": {"limit": 1}}', 'unknown key "NoSuch.Rpc"'],
  ['{"ip": {"limit": 0}}', '"ip.limit" must be a positive whole number'],
  ['{"ip": {"rate": 5}}', 'unknown member "rate"'],
  ['not json', 'is not valid JSON'],
])('refuses RATE_LIMIT_OVERRIDES=%s at start', async (value, message) => {
  const start = startTestService({ RATE_LIMIT_OVERRIDES: value });
  await expect(start).rejects.toThrow(ConfigError);
  await expect(start).rejects.toThrow(message);
});
