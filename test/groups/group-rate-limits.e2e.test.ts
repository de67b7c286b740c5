/**
 * The groups' per-user endpoint limits from groups.proto, with rate limits on: creating (5 per
 * minute, burst 2) and joining (10 per minute, burst 3) answer 429 with `Retry-After` past
 * their bursts, per user.
 */
import { expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';

// Signing the test's users in must not meet the sign-in limit (per IP: every user here is 127.0.0.1).
const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    'AuthService.Initialize': { burst: 20 },
    auth: { burst: 20 },
  }),
});

it('creating groups: burst 2, then 429 with Retry-After; another user is not affected', async () => {
  const [alice, bob] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
  const create = (session: typeof alice) =>
    api.post('/api/v1/groups/create', { name: 'Limited' }, bearer(session));
  expectOk(await create(alice));
  expectOk(await create(alice));
  const refused = await create(alice);
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED', limit: 5 });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expectOk(await create(bob));
});

it('joining: burst 3, then 429', async () => {
  const [owner, joiner] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
  const groupId = expectOk(await api.post('/api/v1/groups/create', { name: 'Open' }, bearer(owner)))
    .group.id;
  const code = expectOk(
    await api.post(`/api/v1/groups/${groupId}/invites`, {}, bearer(owner)),
  ).invite_code;
  const statuses = [];
  for (let i = 0; i < 4; i += 1)
    statuses.push((await api.post(`/api/v1/groups/join/${code}`, {}, bearer(joiner))).status);
  expect(statuses).toEqual([200, 200, 200, 429]);
});
