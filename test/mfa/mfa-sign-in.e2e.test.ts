/**
 * MFA at sign-in over REST: an MFA account's sign-in is pending (no tokens, no cookies, an
 * `mfa_token`) until VerifyMfa; the mfa_token reaches no route but the three MFA-pending ones;
 * codes are refused when reused or more than one step off; backup codes work once; a trusted
 * device skips the step until it is removed.
 */
import { apiServices } from '../../src/platform/api/api-services.js';
import { buildRouteTable } from '../../src/gateway/routing/route-table.js';
import {
  expectAccessAccepted,
  expectFailure,
  expectOk,
  setCookiesOf,
} from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { TestUser } from '../support/wallet.js';
import { challengeAndVerify, enableMfa, mfaBearer } from './mfa-support.js';
import type { MfaUser } from './mfa-support.js';

const running = serviceForThisFile();

let lastStamp = 0;
/** A sign-in of `user` (a fresh signed message each time), with extra members. */
async function initialize(user: TestUser, extra: Record<string, unknown> = {}) {
  while (Date.now() <= lastStamp) await new Promise((resolve) => setTimeout(resolve, 1));
  lastStamp = Date.now();
  return running.api.post('/api/v1/initialize', await user.initializeBody('sign-in', extra));
}

async function pendingSignIn(user: MfaUser, extra: Record<string, unknown> = {}): Promise<string> {
  const reply = await initialize(user.session.user, extra);
  const body = expectOk(reply);
  expect(body).toMatchObject({
    mfa_required: true,
    access_token: '',
    refresh_token: '',
    session_id: '',
    csrf_token: '',
    expires_in: 0,
    user: { mfa_enabled: true },
  });
  expect(reply.headers.getSetCookie()).toEqual([]);
  expect(Date.parse(body.mfa_expires_at) - Date.now()).toBeGreaterThan(4 * 60_000);
  return body.mfa_token;
}

it('holds the sign-in of an MFA account until VerifyMfa, which opens the session and sets the cookies', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const mfaToken = await pendingSignIn(user);
  const challenge = expectOk(
    await running.api.post('/api/v1/mfa/challenge', {}, mfaBearer(mfaToken)),
  );
  expect(challenge).toMatchObject({
    methods: ['totp', 'backup_code'],
    expires_in: 300,
    attempts_remaining: 5,
  });
  const reply = await running.api.post(
    '/api/v1/mfa/verify',
    {
      challenge_id: challenge.challenge_id,
      code: await user.app.nextCode(),
      device_name: 'laptop',
    },
    mfaBearer(mfaToken),
  );
  const verified = expectOk(reply);
  expect(verified).toMatchObject({
    verified: true,
    sign_in_completed: true,
    method: 'totp',
    token_type: 'Bearer',
    expires_in: 900,
    backup_codes_remaining: 10,
    trusted_device_token: '',
  });
  expect(Object.keys(setCookiesOf(reply)).sort()).toEqual(['svc_csrf', 'svc_session']);
  await expectAccessAccepted(running.api, verified.access_token);
  expectOk(await running.api.refresh(verified.refresh_token));
  const sessions = expectOk(await running.api.listSessions(verified.access_token));
  expect(sessions.sessions.find((s: { id: string }) => s.id === verified.session_id)).toMatchObject(
    { device_name: 'laptop' },
  );

  // The mfa_token is spent: it no longer creates challenges or sessions.
  expectFailure(
    await running.api.post('/api/v1/mfa/challenge', {}, mfaBearer(mfaToken)),
    401,
    'UNAUTHORIZED',
  );
  // The challenge is spent too (checked with the new session, which holds no such challenge).
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/verify',
      { challenge_id: challenge.challenge_id, code: '123456' },
      bearer({ accessToken: verified.access_token } as never),
    ),
    404,
    'NOT_FOUND',
  );
});

it('lets the mfa_token reach the three MFA-pending RPCs and nothing else, on every route of the API', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const mfaToken = await pendingSignIn(user);
  const allowed = new Set(['CreateMfaChallenge', 'VerifyMfa', 'GetMfaLockoutStatus']);
  const routes = buildRouteTable(apiServices).filter((route) => !allowed.has(route.method.name));
  expect(routes.length).toBeGreaterThan(200);
  const refused: string[] = [];
  for (const route of routes) {
    const path = route.template.replace(/\{[^}]+\}/g, 'x');
    const reply = await running.api.call(route.httpMethod, path, {
      ...(route.body ? { body: {} } : {}),
      headers: mfaBearer(mfaToken),
    });
    if (reply.status === 401 && reply.body.code === 'UNAUTHORIZED') refused.push(route.template);
    else refused.push(`${route.httpMethod} ${route.template} answered ${reply.status}`);
  }
  expect(refused.filter((entry) => entry.includes('answered'))).toEqual([]);

  expect(
    expectOk(await running.api.get('/api/v1/mfa/lockout-status', mfaBearer(mfaToken))),
  ).toMatchObject({ failed_attempts: 0, max_attempts: 5, locked: false });
  // And it still completes the sign-in afterwards.
  expect(
    expectOk(
      await challengeAndVerify(running.api, mfaBearer(mfaToken), {
        code: await user.app.nextCode(),
      }),
    ),
  ).toMatchObject({ sign_in_completed: true });
});

it('refuses a reused code, codes more than one step off, and a challenge of another sign-in', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const auth = bearer(user.session);
  const code = await user.app.nextCode();
  expect(expectOk(await challengeAndVerify(running.api, auth, { code }))).toMatchObject({
    verified: true,
    sign_in_completed: false,
    method: 'totp',
    access_token: '',
    session_id: user.session.sessionId,
  });
  expectFailure(await challengeAndVerify(running.api, auth, { code }), 401, 'REPLAY_DETECTED');
  expectFailure(
    await challengeAndVerify(running.api, auth, { code: user.app.codeAt(-2) }),
    401,
    'INVALID_CODE',
  );
  expectFailure(
    await challengeAndVerify(running.api, auth, { code: user.app.codeAt(2) }),
    401,
    'INVALID_CODE',
  );

  const mfaToken = await pendingSignIn(user);
  const foreign = expectOk(await running.api.post('/api/v1/mfa/challenge', {}, auth));
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/verify',
      { challenge_id: foreign.challenge_id, code: await user.app.nextCode() },
      mfaBearer(mfaToken),
    ),
    404,
    'NOT_FOUND',
  );
  // A newer challenge replaces the older one.
  const first = expectOk(await running.api.post('/api/v1/mfa/challenge', {}, mfaBearer(mfaToken)));
  expectOk(await running.api.post('/api/v1/mfa/challenge', {}, mfaBearer(mfaToken)));
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/verify',
      { challenge_id: first.challenge_id, code: '123456' },
      mfaBearer(mfaToken),
    ),
    410,
    'GONE',
  );
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/verify',
      { challenge_id: first.challenge_id },
      mfaBearer(mfaToken),
    ),
    400,
    'INVALID_ARGUMENT',
  );
});

it('accepts each backup code once, in any spelling, and counts what is left', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const [first, second] = user.backupCodes as [string, string];
  const mfaToken = await pendingSignIn(user);
  const spelled = ` ${first.toUpperCase().replace('-', ' - ')} `;
  expect(
    expectOk(await challengeAndVerify(running.api, mfaBearer(mfaToken), { backup_code: spelled })),
  ).toMatchObject({ sign_in_completed: true, method: 'backup_code', backup_codes_remaining: 9 });

  const again = await pendingSignIn(user);
  expectFailure(
    await challengeAndVerify(running.api, mfaBearer(again), { backup_code: first }),
    401,
    'INVALID_CODE',
  );
  expect(
    expectOk(await challengeAndVerify(running.api, mfaBearer(again), { backup_code: second })),
  ).toMatchObject({ backup_codes_remaining: 8 });
  expect(
    expectOk(await running.api.get('/api/v1/mfa/backup-codes/status', bearer(user.session))),
  ).toMatchObject({ total: 10, remaining: 8, used: 2 });
});

it('regenerates backup codes only with a TOTP code, and the old ones stop working', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const auth = bearer(user.session);
  expectFailure(
    await running.api.post('/api/v1/mfa/backup-codes/regenerate', {}, auth),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/backup-codes/regenerate',
      { backup_code: user.backupCodes[0] },
      auth,
    ),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/backup-codes/regenerate',
      { code: '000000' === user.app.codeAt(0) ? '111111' : '000000' },
      auth,
    ),
    401,
    'INVALID_CODE',
  );
  const fresh = expectOk(
    await running.api.post(
      '/api/v1/mfa/backup-codes/regenerate',
      { code: await user.app.nextCode() },
      auth,
    ),
  );
  expect(fresh.backup_codes).toHaveLength(10);
  expect(fresh.backup_codes.filter((code: string) => user.backupCodes.includes(code))).toEqual([]);
  expect(expectOk(await running.api.get('/api/v1/mfa/backup-codes/status', auth))).toMatchObject({
    total: 10,
    remaining: 10,
    used: 0,
    generated_at: fresh.generated_at,
  });

  const mfaToken = await pendingSignIn(user);
  expectFailure(
    await challengeAndVerify(running.api, mfaBearer(mfaToken), {
      backup_code: user.backupCodes[1],
    }),
    401,
    'INVALID_CODE',
  );
  expect(
    expectOk(
      await challengeAndVerify(running.api, mfaBearer(mfaToken), {
        backup_code: fresh.backup_codes[1],
      }),
    ),
  ).toMatchObject({ sign_in_completed: true });
});

it('skips the MFA step for a trusted device until the device is removed', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const mfaToken = await pendingSignIn(user);
  const verified = expectOk(
    await challengeAndVerify(running.api, mfaBearer(mfaToken), {
      backup_code: user.backupCodes[0],
      trust_device: true,
      device_name: 'phone',
    }),
  );
  expect(verified.trusted_device_token).toMatch(/^[0-9a-f]{24}\.[A-Za-z0-9_-]{43}$/);
  expect(Date.parse(verified.trusted_device_expires_at) - Date.now()).toBeGreaterThan(
    29 * 86_400_000,
  );

  const trusted = expectOk(
    await initialize(user.session.user, { trusted_device_token: verified.trusted_device_token }),
  );
  expect(trusted).toMatchObject({ mfa_required: false, mfa_token: '', message: 'Signed in' });
  await expectAccessAccepted(running.api, trusted.access_token);
  // A token of the wrong shape or of another account does not skip it.
  await pendingSignIn(user, {
    trusted_device_token: `${verified.trusted_device_id}.${'A'.repeat(43)}`,
  });

  const auth = bearer(user.session);
  const listed = expectOk(await running.api.get('/api/v1/mfa/trusted-devices', auth));
  expect(listed).toMatchObject({
    next_cursor: '',
    trusted_devices: [
      {
        device_id: verified.trusted_device_id,
        name: 'phone',
        expires_at: verified.trusted_device_expires_at,
      },
    ],
  });
  expect(listed.trusted_devices[0].last_used_at).not.toBe('');
  expect(expectOk(await running.api.get('/api/v1/mfa/status', auth))).toMatchObject({
    trusted_devices_count: 1,
  });
  expectFailure(
    await running.api.get('/api/v1/mfa/trusted-devices?page_size=500', auth),
    400,
    'INVALID_ARGUMENT',
  );

  const stranger = await signIn(running.service.baseUrl);
  expectFailure(
    await running.api.delete(
      `/api/v1/mfa/trusted-devices/${verified.trusted_device_id}`,
      bearer(stranger),
    ),
    404,
    'NOT_FOUND',
  );
  expectOk(
    await running.api.delete(`/api/v1/mfa/trusted-devices/${verified.trusted_device_id}`, auth),
  );
  expectFailure(
    await running.api.delete(`/api/v1/mfa/trusted-devices/${verified.trusted_device_id}`, auth),
    404,
    'NOT_FOUND',
  );
  await pendingSignIn(user, { trusted_device_token: verified.trusted_device_token });
  expect(
    expectOk(await running.api.get('/api/v1/mfa/trusted-devices', auth)).trusted_devices,
  ).toEqual([]);
});
