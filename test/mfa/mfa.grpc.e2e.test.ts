/**
 * MFA through a native gRPC client on the RPC port: setup and enable, the MFA-pending sign-in
 * (Initialize answers mfa_required; the mfa_token is UNAUTHENTICATED on other RPCs; VerifyMfa
 * returns the tokens and the cookies in the response metadata), a reused code, drift, backup
 * codes, and trusted devices.
 */
import { grpcClient } from '../support/grpc-client.js';
import type { GrpcServiceClient } from '../support/grpc-client.js';
import { TestUser } from '../support/wallet.js';
import { bearer, call, failure, ok, setCookies } from '../identity/grpc/grpc-call.js';
import { Authenticator } from './mfa-support.js';
import { serviceForThisFile } from '../support/service-for-tests.js';

let auth: GrpcServiceClient;
let mfa: GrpcServiceClient;
let sessions: GrpcServiceClient;
const { service } = serviceForThisFile();
beforeAll(async () => {
  auth = grpcClient(service.grpcAddress, 'service/v1/auth.proto', 'service.v1.AuthService');
  mfa = grpcClient(service.grpcAddress, 'service/v1/mfa.proto', 'service.v1.MfaService');
  sessions = grpcClient(
    service.grpcAddress,
    'service/v1/session.proto',
    'service.v1.SessionService',
  );
});
afterAll(async () => {
  for (const client of [auth, mfa, sessions]) client.close();
});

/** A registered user with MFA on, set up over gRPC. */
async function mfaUser() {
  const user = new TestUser();
  const registered = (await ok(auth, 'Initialize', await user.initializeBody('register'))).response;
  const token = bearer(registered.access_token);
  const setup = (await ok(mfa, 'SetupTotp', {}, token)).response;
  expect(setup.provisioning_uri).toContain(`secret=${setup.secret}`);
  const app = new Authenticator(setup.secret);
  const enabled = (await ok(mfa, 'EnableTotp', { code: await app.nextCode() }, token)).response;
  expect(enabled.backup_codes).toHaveLength(10);
  expect((await ok(mfa, 'GetMfaStatus', {}, token)).response).toMatchObject({
    enabled: true,
    methods: ['totp'],
    backup_codes_remaining: 10,
  });
  return { user, app, token, backupCodes: enabled.backup_codes as string[] };
}

async function pending(user: TestUser, extra: Record<string, unknown> = {}) {
  const { response, headers } = await ok(
    auth,
    'Initialize',
    await user.initializeBody('sign-in', extra),
  );
  expect(response).toMatchObject({
    mfa_required: true,
    access_token: '',
    refresh_token: '',
    user: { mfa_enabled: true },
  });
  expect(setCookies(headers).lines).toEqual([]);
  return bearer(response.mfa_token);
}

async function verify(token: Record<string, string>, answer: Record<string, unknown>) {
  const challenge = (await ok(mfa, 'CreateMfaChallenge', {}, token)).response;
  return call(mfa, 'VerifyMfa', { challenge_id: challenge.challenge_id, ...answer }, token);
}

it('completes an MFA-pending sign-in with VerifyMfa, and the mfa_token opens nothing else', async () => {
  const { user, app } = await mfaUser();
  const mfaToken = await pending(user);
  expect(failure(await call(sessions, 'ListSessions', {}, mfaToken))).toMatchObject({
    code: 'UNAUTHENTICATED',
    reason: 'UNAUTHORIZED',
  });
  expect(failure(await call(mfa, 'GetMfaStatus', {}, mfaToken))).toMatchObject({
    code: 'UNAUTHENTICATED',
    reason: 'UNAUTHORIZED',
  });
  expect(failure(await call(auth, 'CreateWsTicket', {}, mfaToken))).toMatchObject({
    code: 'UNAUTHENTICATED',
    reason: 'UNAUTHORIZED',
  });
  expect((await ok(mfa, 'GetMfaLockoutStatus', {}, mfaToken)).response).toMatchObject({
    failed_attempts: 0,
    max_attempts: 5,
    locked: false,
  });

  const outcome = await verify(mfaToken, { code: await app.nextCode(), device_name: 'grpc' });
  expect(outcome.error).toBeUndefined();
  expect(outcome.response).toMatchObject({
    verified: true,
    sign_in_completed: true,
    method: 'totp',
    token_type: 'Bearer',
    expires_in: 900,
  });
  const cookies = setCookies(outcome.headers);
  expect(Object.keys(cookies.values).sort()).toEqual(['svc_csrf', 'svc_session']);
  expect(
    (await ok(sessions, 'ListSessions', {}, bearer(outcome.response.access_token))).response
      .sessions.length,
  ).toBeGreaterThan(0);
  expect(failure(await call(mfa, 'CreateMfaChallenge', {}, mfaToken))).toMatchObject({
    code: 'UNAUTHENTICATED',
  });
});

it('refuses a reused code and codes more than one step off, with their reasons', async () => {
  const { app, token } = await mfaUser();
  const code = await app.nextCode();
  expect((await verify(token, { code })).response).toMatchObject({
    verified: true,
    sign_in_completed: false,
  });
  expect(failure(await verify(token, { code }))).toMatchObject({
    code: 'UNAUTHENTICATED',
    reason: 'REPLAY_DETECTED',
  });
  expect(failure(await verify(token, { code: app.codeAt(-2) }))).toMatchObject({
    code: 'UNAUTHENTICATED',
    reason: 'INVALID_CODE',
  });
  expect(failure(await verify(token, { code: app.codeAt(2) }))).toMatchObject({
    code: 'UNAUTHENTICATED',
    reason: 'INVALID_CODE',
  });
  expect(failure(await verify(token, {}))).toMatchObject({
    code: 'INVALID_ARGUMENT',
    reason: 'INVALID_ARGUMENT',
  });
});

it('uses backup codes once, regenerates them, and trusts a device until it is removed', async () => {
  const { user, app, token, backupCodes } = await mfaUser();
  const first = await pending(user);
  const trusted = await verify(first, { backup_code: backupCodes[0], trust_device: true });
  expect(trusted.response).toMatchObject({
    method: 'backup_code',
    backup_codes_remaining: 9,
    sign_in_completed: true,
  });
  expect(failure(await verify(token, { backup_code: backupCodes[0] }))).toMatchObject({
    reason: 'INVALID_CODE',
  });

  const regenerated = (
    await ok(mfa, 'RegenerateBackupCodes', { code: await app.nextCode() }, token)
  ).response;
  expect(regenerated.backup_codes).toHaveLength(10);
  expect(failure(await verify(token, { backup_code: backupCodes[1] }))).toMatchObject({
    reason: 'INVALID_CODE',
  });
  expect((await ok(mfa, 'GetBackupCodesStatus', {}, token)).response).toMatchObject({
    total: 10,
    remaining: 10,
    used: 0,
  });

  const skipped = (
    await ok(
      auth,
      'Initialize',
      await user.initializeBody('sign-in', {
        trusted_device_token: trusted.response.trusted_device_token,
      }),
    )
  ).response;
  expect(skipped).toMatchObject({ mfa_required: false });
  expect(skipped.access_token).not.toBe('');
  const listed = (await ok(mfa, 'ListTrustedDevices', {}, token)).response;
  expect(listed.trusted_devices.map((device: { device_id: string }) => device.device_id)).toEqual([
    trusted.response.trusted_device_id,
  ]);
  await ok(mfa, 'DeleteTrustedDevice', { device_id: trusted.response.trusted_device_id }, token);
  expect(
    failure(
      await call(
        mfa,
        'DeleteTrustedDevice',
        { device_id: trusted.response.trusted_device_id },
        token,
      ),
    ),
  ).toMatchObject({ code: 'NOT_FOUND' });
  await pending(user, { trusted_device_token: trusted.response.trusted_device_token });
});
