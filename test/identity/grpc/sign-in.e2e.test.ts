/**
 * Wallet sign-in (AuthService.Initialize) through a native gRPC client on the RPC port:
 * registration and sign-in, the cookies in the response metadata, and every failure as a gRPC
 * status with its machine reason in the `x-error-code` trailer.
 */
import { grpcClient } from '../../support/grpc-client.js';
import type { GrpcServiceClient } from '../../support/grpc-client.js';
import {
  TestUser,
  registrationMessage,
  shortRegistrationMessage,
  signInMessage,
} from '../../support/wallet.js';
import { call, failure, ok, setCookies } from './grpc-call.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let auth: GrpcServiceClient;
const { service } = serviceForThisFile();
beforeAll(async () => {
  auth = grpcClient(service.grpcAddress, 'service/v1/auth.proto', 'service.v1.AuthService');
});
afterAll(async () => {
  auth.close();
});

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

async function register(user = new TestUser()) {
  return { user, outcome: await ok(auth, 'Initialize', await user.initializeBody('register')) };
}

describe('Initialize over gRPC', () => {
  it('registers a new wallet: a token pair, the session id, the account, and the cookies in the response metadata', async () => {
    const { user, outcome } = await register();
    const response = outcome.response;
    expect(response).toMatchObject({
      success: true,
      message: 'Account created',
      token_type: 'Bearer',
      expires_in: 900,
      is_new_user: true,
      mfa_required: false,
      mfa_token: '',
      user: {
        address: user.address.toLowerCase(),
        username: user.username,
        display_name: 'Alice',
        mfa_enabled: false,
      },
    });
    expect(response.access_token).toMatch(JWT);
    expect(response.refresh_token).toMatch(JWT);
    expect(response.refresh_token).not.toBe(response.access_token);
    expect(response.expires_at).toMatch(ISO_MS);
    expect(response.refresh_expires_at).toMatch(ISO_MS);
    expect(response.session_id).not.toBe('');
    expect(response.csrf_token).not.toBe('');
    const accessExpiry = Date.parse(response.expires_at) - Date.now();
    expect(accessExpiry).toBeGreaterThan(890_000);
    expect(accessExpiry).toBeLessThanOrEqual(900_000);
    const refreshExpiry = Date.parse(response.refresh_expires_at) - Date.now();
    expect(refreshExpiry).toBeGreaterThan(7 * 86_400_000 - 60_000);
    expect(refreshExpiry).toBeLessThanOrEqual(7 * 86_400_000);

    const cookies = setCookies(outcome.headers);
    expect(cookies.lines).toHaveLength(2);
    const session = cookies.lines.find((line) => line.startsWith('svc_session='))!;
    const csrf = cookies.lines.find((line) => line.startsWith('svc_csrf='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=(Strict|Lax)/i);
    expect(session).toMatch(/Path=\//);
    expect(csrf).not.toMatch(/HttpOnly/i);
    // The session cookie is `<session id>.<secret>`; the CSRF cookie carries the CSRF token.
    expect(cookies.values.svc_session!.startsWith(`${response.session_id}.`)).toBe(true);
    expect(cookies.values.svc_csrf).toBe(response.csrf_token);
    // Nothing failed, so no machine reason.
    expect(outcome.status.metadata.get('x-error-code')).toEqual([]);
  });

  it('signs a returning wallet in with template 1: a new session, is_new_user false, the profile unchanged', async () => {
    const { user, outcome: first } = await register();
    const { response, headers } = await ok(
      auth,
      'Initialize',
      await user.initializeBody('sign-in'),
    );
    expect(response).toMatchObject({
      success: true,
      message: 'Signed in',
      is_new_user: false,
      user: { address: user.address.toLowerCase(), username: user.username, display_name: 'Alice' },
    });
    expect(response.session_id).not.toBe(first.response.session_id);
    expect(response.access_token).toMatch(JWT);
    expect(setCookies(headers).values.svc_session!.startsWith(`${response.session_id}.`)).toBe(
      true,
    );
  });

  it('registers with the short template and the username in the request', async () => {
    const user = new TestUser();
    const message = shortRegistrationMessage({ address: user.address, username: user.username });
    const { response } = await ok(auth, 'Initialize', {
      wallet_address: user.address,
      message,
      signature: await user.sign(message),
      username: user.username,
    });
    expect(response).toMatchObject({
      is_new_user: true,
      user: { username: user.username, display_name: '' },
    });
  });

  it('a message that matches no template is UNAUTHENTICATED with reason UNAUTHORIZED', async () => {
    const user = new TestUser();
    const message = `${signInMessage({ address: user.address })}\n`; // a trailing newline breaks the template
    const outcome = await call(auth, 'Initialize', {
      wallet_address: user.address,
      message,
      signature: await user.sign(message),
    });
    expect(failure(outcome)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
    expect(outcome.headers.get('set-cookie')).toEqual([]);
  });

  it('a signature by another wallet is UNAUTHENTICATED with reason UNAUTHORIZED', async () => {
    const user = new TestUser();
    const message = registrationMessage({ address: user.address, username: user.username });
    const outcome = await call(auth, 'Initialize', {
      wallet_address: user.address,
      message,
      signature: await new TestUser().sign(message),
    });
    expect(failure(outcome)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
  });

  it('a timestamp more than 5 minutes old is UNAUTHENTICATED with reason EXPIRED_SIGNATURE', async () => {
    const user = new TestUser();
    const message = registrationMessage({
      address: user.address,
      username: user.username,
      timestampMs: Date.now() - 6 * 60_000,
    });
    const outcome = await call(auth, 'Initialize', {
      wallet_address: user.address,
      message,
      signature: await user.sign(message),
    });
    expect(failure(outcome)).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'EXPIRED_SIGNATURE',
    });
  });

  it('a timestamp more than 5 minutes ahead is UNAUTHENTICATED with reason EXPIRED_SIGNATURE', async () => {
    const user = new TestUser();
    const message = registrationMessage({
      address: user.address,
      username: user.username,
      timestampMs: Date.now() + 6 * 60_000,
    });
    const outcome = await call(auth, 'Initialize', {
      wallet_address: user.address,
      message,
      signature: await user.sign(message),
    });
    expect(failure(outcome)).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'EXPIRED_SIGNATURE',
    });
  });

  it('presenting an accepted signature again is UNAUTHENTICATED with reason REPLAY_DETECTED', async () => {
    const user = new TestUser();
    const body = await user.initializeBody('register');
    await ok(auth, 'Initialize', body);
    const replayed = await call(auth, 'Initialize', body);
    expect(failure(replayed)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REPLAY_DETECTED' });
    expect(replayed.headers.get('set-cookie')).toEqual([]);
    // Another encoding of the same signature (uppercase hex) is the same signature.
    const recased = await call(auth, 'Initialize', {
      ...body,
      signature: `0x${body.signature.slice(2).toUpperCase()}`,
    });
    expect(failure(recased)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REPLAY_DETECTED' });
  });

  it('the status probe of a wallet without an account is INVALID_ARGUMENT (username required)', async () => {
    const outcome = await call(auth, 'Initialize', { wallet_address: new TestUser().address });
    expect(failure(outcome)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'INVALID_ARGUMENT',
    });
  });

  it('the status probe of a wallet with an account is UNAUTHENTICATED (signature required)', async () => {
    const { user } = await register();
    const outcome = await call(auth, 'Initialize', { wallet_address: user.address });
    expect(failure(outcome)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
  });

  it('only one of message and signature is UNAUTHENTICATED', async () => {
    const user = new TestUser();
    const outcome = await call(auth, 'Initialize', {
      wallet_address: user.address,
      message: signInMessage({ address: user.address }),
    });
    expect(failure(outcome)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
  });

  it('template 1 from a wallet without an account is INVALID_ARGUMENT', async () => {
    const user = new TestUser();
    const outcome = await call(auth, 'Initialize', await user.initializeBody('sign-in'));
    expect(failure(outcome)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'INVALID_ARGUMENT',
    });
  });

  it('a malformed wallet_address is INVALID_ARGUMENT', async () => {
    const outcome = await call(auth, 'Initialize', {
      wallet_address: '0x1234',
      message: 'x',
      signature: '0x00',
    });
    expect(failure(outcome)).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'INVALID_ARGUMENT',
    });
  });

  it('a username held by another account is ALREADY_EXISTS with reason CONFLICT, and no account is created', async () => {
    const { user: holder } = await register();
    const newcomer = new TestUser();
    const message = registrationMessage({ address: newcomer.address, username: holder.username });
    const outcome = await call(auth, 'Initialize', {
      wallet_address: newcomer.address,
      message,
      signature: await newcomer.sign(message),
    });
    expect(failure(outcome)).toMatchObject({ code: 'ALREADY_EXISTS', reason: 'CONFLICT' });
    // The newcomer still has no account: the status probe says a username is required.
    expect(
      failure(await call(auth, 'Initialize', { wallet_address: newcomer.address })),
    ).toMatchObject({ code: 'INVALID_ARGUMENT' });
  });

  it('the username check over gRPC sees a registered name as taken', async () => {
    const { user } = await register();
    const { response } = await ok(auth, 'CheckUsername', { username: user.username.toUpperCase() });
    expect(response).toMatchObject({
      success: true,
      username: user.username,
      valid: true,
      available: false,
      reason: 'taken',
    });
  });
});
