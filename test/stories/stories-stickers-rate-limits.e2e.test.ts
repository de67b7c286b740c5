/**
 * The per-user endpoint limits of stories and stickers, with rate limits on: every stories RPC
 * is 20 per minute, burst 5; the sticker pack list 30/10; sticker sends 60/20. Past the burst a
 * call answers 429 with `Retry-After`, and another user is not affected.
 */
import { expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

// Signing the test's users in must not meet the sign-in limit, nor the calls the per-IP or per-user
// buckets (every user here is 127.0.0.1): only the endpoint buckets are under test.
const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_OVERRIDES: JSON.stringify({
    'AuthService.Initialize': { burst: 20 },
    auth: { burst: 20 },
    ip: { burst: 500 },
    user: { burst: 500 },
  }),
});

async function statusesOf(
  count: number,
  call: () => Promise<{ status: number }>,
): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < count; i += 1) statuses.push((await call()).status);
  return statuses;
}

it('posting stories: burst 5, then 429 with Retry-After; another user is not affected', async () => {
  const [alice, bob] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
  const create = (session: SignedIn) =>
    api.post(
      '/api/v1/stories',
      { ciphertext: Buffer.from('x').toString('base64') },
      bearer(session),
    );
  expect(await statusesOf(5, () => create(alice))).toEqual([200, 200, 200, 200, 200]);
  const refused = await create(alice);
  expect(refused.status).toBe(429);
  expect(refused.body).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED', limit: 20 });
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
  expectOk(await create(bob));
});

it('listing sticker packs: burst 10; sending stickers: burst 20', async () => {
  const [alice, bob] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
  expect(await statusesOf(11, () => api.get('/api/v1/stickers/packs', bearer(alice)))).toEqual([
    ...Array(10).fill(200),
    429,
  ]);
  let counter = 0;
  const send = () =>
    api.post(
      '/api/v1/stickers/send',
      {
        client_message_id: `rl-${++counter}`,
        recipient_address: bob.user.address,
        sticker_id: 'basics.smile',
      },
      bearer(alice),
    );
  expect(await statusesOf(21, send)).toEqual([...Array(20).fill(200), 429]);
});
