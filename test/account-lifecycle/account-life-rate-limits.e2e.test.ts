/**
 * The rate limits issue #19 names, on a running service with limits on, over real HTTP: each
 * RPC lets its burst through (whatever else it answers) and refuses the next call with 429,
 * `RATE_LIMIT_EXCEEDED` and its own limit in `X-RateLimit-Limit`. Each row is a fresh loopback
 * client, so per-IP buckets (recovery initiate and challenge) start full; per-user buckets are
 * the signed-in user's. The numbers are the protos' (`(rate_limit)`), the mechanism test/limits'.
 * DeleteAccount's calls carry a valid X-Signature (and a wrong `confirm`, so nothing is deleted):
 * the signature gate answers before the endpoint's bucket is charged.
 */
import { randomBytes } from 'node:crypto';
import { requestFrom } from '../support/http-from.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { DELETE_ACCOUNT_RPC, encodeDeleteAccount, xSignature } from '../support/signed-request.js';
import { TestUser } from '../support/wallet.js';

const { service } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'true' });

let nextClient = 40;
const freshClient = () => `127.0.${Math.floor(nextClient / 250)}.${(nextClient++ % 250) + 2}`;

/** Signs a new user in from `client` (one registration: within sign-in's per-IP burst of 2). */
async function signedInFrom(client: string): Promise<{ user: TestUser; accessToken: string }> {
  const user = new TestUser();
  const reply = await requestFrom(`${service.baseUrl}/api/v1/initialize`, client, {
    method: 'POST',
    json: await user.initializeBody('register'),
  });
  expect(reply.status).toBe(200);
  return { user, accessToken: JSON.parse(reply.body).access_token as string };
}

const ROWS: [
  path: string,
  limit: number,
  burst: number,
  signedIn: boolean,
  body: () => Record<string, unknown>,
][] = [
  [
    '/api/v1/update-username',
    10,
    3,
    true,
    () => ({ username: `n_${randomBytes(6).toString('hex')}` }),
  ],
  ['/api/v1/update-profile', 20, 5, true, () => ({ bio: 'hello' })],
  ['/api/v1/discover', 30, 10, true, () => ({ phone_hashes: [randomBytes(32).toString('hex')] })],
  ['/api/v1/delete-account', 3, 1, true, () => ({ confirm: '0x' + '1'.repeat(40) })],
  ['/api/v1/recovery/initiate', 3, 1, false, () => ({ address: '0x' + '1'.repeat(40) })],
  ['/api/v1/recovery/challenge', 5, 2, false, () => ({ backup_code: 'wrong' })],
];

it.each(ROWS)(
  'POST %s: %i per minute, a burst of %i, then 429',
  async (path, limit, burst, signedIn, body) => {
    const client = freshClient();
    const caller = signedIn ? await signedInFrom(client) : undefined;
    const send = async () => {
      const json = body();
      const headers: Record<string, string> = caller
        ? { authorization: `Bearer ${caller.accessToken}` }
        : {};
      if (caller && path === '/api/v1/delete-account')
        headers['x-signature'] = await xSignature(caller.user, {
          rpc: DELETE_ACCOUNT_RPC,
          body: encodeDeleteAccount(json),
        });
      return requestFrom(`${service.baseUrl}${path}`, client, { method: 'POST', json, headers });
    };
    for (let call = 0; call < burst; call++) expect((await send()).status).not.toBe(429);
    const refused = await send();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toMatchObject({ success: false, code: 'RATE_LIMIT_EXCEEDED' });
    expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': String(limit) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  },
);
