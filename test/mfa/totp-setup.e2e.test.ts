/**
 * TOTP setup and enabling over REST, with codes from an independent authenticator (otpauth):
 * the provisioning URI and secret, a wrong code refused, MFA on with 10 backup codes, the
 * status, and the state errors (404 without setup, 409 when already on).
 */
import * as OTPAuth from 'otpauth';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import { Authenticator, enableMfa } from './mfa-support.js';

const running = serviceForThisFile();

it('sets up TOTP, refuses a wrong code, enables MFA with a right one and reports the status', async () => {
  const session = await signIn(running.service.baseUrl);
  const auth = bearer(session);
  expect(expectOk(await running.api.get('/api/v1/mfa/status', auth))).toMatchObject({
    enabled: false,
    methods: [],
    setup_pending: false,
    backup_codes_remaining: 0,
  });

  const setup = expectOk(await running.api.post('/api/v1/mfa/totp/setup', {}, auth));
  expect(setup.secret).toMatch(/^[A-Z2-7]{32}$/);
  expect(setup).toMatchObject({ issuer: 'Service', account_name: session.user.username });
  const uri = OTPAuth.URI.parse(setup.provisioning_uri) as OTPAuth.TOTP;
  expect({
    secret: uri.secret.base32,
    issuer: uri.issuer,
    label: uri.label,
    digits: uri.digits,
    period: uri.period,
    algorithm: uri.algorithm,
  }).toEqual({
    secret: setup.secret,
    issuer: 'Service',
    label: session.user.username,
    digits: 6,
    period: 30,
    algorithm: 'SHA1',
  });
  expect(Date.parse(setup.expires_at) - Date.now()).toBeGreaterThan(9 * 60_000);
  expect(expectOk(await running.api.get('/api/v1/mfa/status', auth))).toMatchObject({
    enabled: false,
    setup_pending: true,
  });

  const app = new Authenticator(setup.secret);
  const wrong = String((Number(app.codeAt(0)) + 1) % 1_000_000).padStart(6, '0');
  expectFailure(
    await running.api.post('/api/v1/mfa/totp/enable', { code: wrong }, auth),
    401,
    'INVALID_CODE',
  );
  expectFailure(
    await running.api.post('/api/v1/mfa/totp/enable', { code: '12345' }, auth),
    400,
    'INVALID_ARGUMENT',
  );

  const enabled = expectOk(
    await running.api.post('/api/v1/mfa/totp/enable', { code: await app.nextCode() }, auth),
  );
  expect(enabled.backup_codes).toHaveLength(10);
  for (const code of enabled.backup_codes) expect(code).toMatch(/^[a-z0-9]{4}-[a-z0-9]{4}$/);
  expect(new Set(enabled.backup_codes).size).toBe(10);

  const status = expectOk(await running.api.get('/api/v1/mfa/status', auth));
  expect(status).toMatchObject({
    enabled: true,
    methods: ['totp'],
    backup_codes_remaining: 10,
    trusted_devices_count: 0,
    setup_pending: false,
    enabled_at: enabled.enabled_at,
  });
  expectFailure(await running.api.post('/api/v1/mfa/totp/setup', {}, auth), 409, 'CONFLICT');
  expectFailure(
    await running.api.post('/api/v1/mfa/totp/enable', { code: await app.nextCode() }, auth),
    409,
    'CONFLICT',
  );
});

it('answers 404 to enable without a setup, and 409 to MFA operations while MFA is off', async () => {
  const auth = bearer(await signIn(running.service.baseUrl));
  expectFailure(
    await running.api.post('/api/v1/mfa/totp/enable', { code: '123456' }, auth),
    404,
    'NOT_FOUND',
  );
  expectFailure(await running.api.get('/api/v1/mfa/backup-codes/status', auth), 409, 'CONFLICT');
  expectFailure(await running.api.post('/api/v1/mfa/challenge', {}, auth), 409, 'CONFLICT');
  expectFailure(
    await running.api.post('/api/v1/mfa/disable', { code: '123456' }, auth),
    409,
    'CONFLICT',
  );
});

it('turns MFA off only with a valid code, deleting the secret, the backup codes and the trusted devices', async () => {
  const user = await enableMfa(running.api, await signIn(running.service.baseUrl));
  const auth = bearer(user.session);
  expectFailure(await running.api.post('/api/v1/mfa/disable', {}, auth), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await running.api.post(
      '/api/v1/mfa/disable',
      { code: '000000', backup_code: user.backupCodes[0] },
      auth,
    ),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await running.api.post('/api/v1/mfa/disable', { backup_code: 'zzzz-zzzz' }, auth),
    401,
    'INVALID_CODE',
  );
  expect(
    expectOk(
      await running.api.post('/api/v1/mfa/disable', { code: await user.app.nextCode() }, auth),
    ),
  ).toEqual({ success: true, message: 'MFA is off', enabled: false });
  expect(expectOk(await running.api.get('/api/v1/mfa/status', auth))).toMatchObject({
    enabled: false,
    backup_codes_remaining: 0,
    setup_pending: false,
  });
  // Signing in again needs no second factor.
  const again = await running.api.post(
    '/api/v1/initialize',
    await user.session.user.initializeBody('sign-in'),
  );
  expect(expectOk(again)).toMatchObject({ mfa_required: false, user: { mfa_enabled: false } });
});
