/**
 * The MFA lockout, with the abuse controls on (their buckets raised so that only the lockout
 * can refuse): 5 wrong codes lock the account (429 LOCKED_OUT with Retry-After) for MFA and for
 * sign-in alike, the lockout status reports it to the pending sign-in, and a success before the
 * fifth failure resets the count.
 */
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import { challengeAndVerify, enableMfa, mfaBearer } from './mfa-support.js';

const roomy = { limit: 10_000, burst: 10_000 };
const overrides = {
  ip: roomy,
  user: roomy,
  auth: roomy,
  default: roomy,
  'AuthService.Initialize': roomy,
  'MfaService.VerifyMfa': roomy,
  'MfaService.CreateMfaChallenge': roomy,
  'MfaService.SetupTotp': roomy,
  'MfaService.EnableTotp': roomy,
};
const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'true',
  RATE_LIMIT_OVERRIDES: JSON.stringify(overrides),
});

const WRONG = { backup_code: 'wron-gcod' };

it('locks the account after 5 wrong codes and reports it, to the pending sign-in too', async () => {
  const user = await enableMfa(api, await signIn(service.baseUrl));
  const pending = expectOk(
    await api.post('/api/v1/initialize', await user.session.user.initializeBody('sign-in')),
  );
  const mfa = mfaBearer(pending.mfa_token);
  for (let failure = 1; failure <= 4; failure++) {
    expectFailure(await challengeAndVerify(api, mfa, WRONG), 401, 'INVALID_CODE');
    expect(expectOk(await api.get('/api/v1/mfa/lockout-status', mfa))).toMatchObject({
      failed_attempts: failure,
      max_attempts: 5,
      locked: false,
      locked_until: '',
      retry_after: 0,
    });
  }
  const challenge = expectOk(await api.post('/api/v1/mfa/challenge', {}, mfa));
  expect(challenge.attempts_remaining).toBe(1);
  expectFailure(
    await api.post('/api/v1/mfa/verify', { challenge_id: challenge.challenge_id, ...WRONG }, mfa),
    401,
    'INVALID_CODE',
  );

  const status = expectOk(await api.get('/api/v1/mfa/lockout-status', mfa));
  expect(status).toMatchObject({ failed_attempts: 0, locked: true });
  expect(status.retry_after).toBeGreaterThan(50);
  expect(Date.parse(status.locked_until) - Date.now()).toBeGreaterThan(50_000);

  // Even the right code is refused while locked, and so is a new challenge and a new sign-in.
  const locked = await api.post(
    '/api/v1/mfa/verify',
    { challenge_id: challenge.challenge_id, code: await user.app.nextCode() },
    mfa,
  );
  expectFailure(locked, 429, 'LOCKED_OUT');
  expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(50);
  expectFailure(await api.post('/api/v1/mfa/challenge', {}, mfa), 429, 'LOCKED_OUT');
  expectFailure(
    await api.post('/api/v1/initialize', await user.session.user.initializeBody('sign-in')),
    429,
    'LOCKED_OUT',
  );
  expect(expectOk(await api.get('/api/v1/mfa/lockout-status', bearer(user.session)))).toMatchObject(
    { locked: true },
  );
});

it('forgets earlier failures after a successful verification', async () => {
  const user = await enableMfa(api, await signIn(service.baseUrl));
  const auth = bearer(user.session);
  for (let i = 0; i < 3; i++)
    expectFailure(await challengeAndVerify(api, auth, WRONG), 401, 'INVALID_CODE');
  expect(expectOk(await api.get('/api/v1/mfa/lockout-status', auth))).toMatchObject({
    failed_attempts: 3,
  });
  expectOk(await challengeAndVerify(api, auth, { code: await user.app.nextCode() }));
  expect(expectOk(await api.get('/api/v1/mfa/lockout-status', auth))).toMatchObject({
    failed_attempts: 0,
    locked: false,
  });
});
