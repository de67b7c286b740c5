/**
 * The token life cycle and the sessions through a native gRPC client: refresh rotation and
 * reuse detection, Bearer metadata on authenticated RPCs, Logout, and one pipeline shared with
 * REST (a session opened over gRPC is the same session over REST, and the other way round).
 */
import { grpcClient } from '../../support/grpc-client.js';
import type { GrpcServiceClient } from '../../support/grpc-client.js';
import { TestUser, signIn } from '../../support/wallet.js';
import { bearer, call, failure, ok } from './grpc-call.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let auth: GrpcServiceClient;
let sessions: GrpcServiceClient;
const { service } = serviceForThisFile();
beforeAll(async () => {
  auth = grpcClient(service.grpcAddress, 'service/v1/auth.proto', 'service.v1.AuthService');
  sessions = grpcClient(
    service.grpcAddress,
    'service/v1/session.proto',
    'service.v1.SessionService',
  );
});
afterAll(async () => {
  auth.close();
  sessions.close();
});

async function grpcSignIn(user = new TestUser()) {
  const { response } = await ok(auth, 'Initialize', await user.initializeBody('register'));
  return {
    user,
    accessToken: response.access_token as string,
    refreshToken: response.refresh_token as string,
    sessionId: response.session_id as string,
  };
}

const rest = (path: string, init: RequestInit = {}) => fetch(`${service.baseUrl}${path}`, init);

describe('RefreshToken over gRPC', () => {
  it('rotates: a new pair for the same session, and the new access token works', async () => {
    const signedIn = await grpcSignIn();
    const { response } = await ok(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken });
    expect(response).toMatchObject({
      success: true,
      token_type: 'Bearer',
      expires_in: 900,
      session_id: signedIn.sessionId,
    });
    expect(response.refresh_token).not.toBe(signedIn.refreshToken);
    expect(response.access_token).not.toBe(signedIn.accessToken);
    await ok(sessions, 'ListSessions', {}, bearer(response.access_token));
    // The rotated token can itself be exchanged once.
    await ok(auth, 'RefreshToken', { refresh_token: response.refresh_token });
  });

  it('reusing an exchanged refresh token is UNAUTHENTICATED with reason REPLAY_DETECTED and ends the session', async () => {
    const signedIn = await grpcSignIn();
    const { response: rotated } = await ok(auth, 'RefreshToken', {
      refresh_token: signedIn.refreshToken,
    });
    const reuse = await call(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken });
    expect(failure(reuse)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REPLAY_DETECTED' });
    // The whole family is revoked: the newest refresh token and the access tokens are refused.
    expect(
      failure(await call(auth, 'RefreshToken', { refresh_token: rotated.refresh_token })),
    ).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(
      failure(await call(sessions, 'ListSessions', {}, bearer(rotated.access_token))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
    expect(
      failure(await call(sessions, 'ListSessions', {}, bearer(signedIn.accessToken))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
  });

  // Known interop issue, client side: Connect encodes `grpc-message` with encodeURIComponent, grpc-js
  // decodes it with decodeURI, so `;` `,` `:` `/` and the like reach grpc-js clients as `%3B`…
  // This client sees "This refresh token was already used%3B the session has been ended".
  it.failing('the status message reaches a grpc-js client readable', async () => {
    const signedIn = await grpcSignIn();
    await ok(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken });
    const reuse = await call(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken });
    expect(failure(reuse).details).toBe(
      'This refresh token was already used; the session has been ended',
    );
  });

  it('an access token presented as a refresh token is UNAUTHENTICATED', async () => {
    const signedIn = await grpcSignIn();
    const outcome = await call(auth, 'RefreshToken', { refresh_token: signedIn.accessToken });
    expect(failure(outcome)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
  });

  it('a missing refresh token is INVALID_ARGUMENT', async () => {
    expect(failure(await call(auth, 'RefreshToken', {}))).toMatchObject({
      code: 'INVALID_ARGUMENT',
      reason: 'INVALID_ARGUMENT',
    });
  });
});

describe('authenticated RPCs with `authorization: Bearer` metadata', () => {
  it("ListSessions lists the caller's session, current, with the gRPC client's user agent", async () => {
    const signedIn = await grpcSignIn();
    const { response } = await ok(sessions, 'ListSessions', {}, bearer(signedIn.accessToken));
    expect(response.success).toBe(true);
    expect(response.sessions).toHaveLength(1);
    expect(response.sessions[0]).toMatchObject({
      id: signedIn.sessionId,
      current: true,
      auth_method: 'wallet',
    });
    expect(response.sessions[0].user_agent).toMatch(/grpc-node-js/);
    // The client address is kept masked: the network, not the host.
    expect(response.sessions[0].ip).toMatch(/^127\.0\.0\./);
    expect(response.sessions[0].ip).not.toBe('127.0.0.1');
  });

  // Known bug (reported, src/ is not ours to change): session.proto documents the masked IPv4
  // form as `203.0.113.*`, maskIp writes `203.0.113.0`. Turn into a plain `it` once fixed.
  it('the session IP is masked in the documented form (`127.0.0.*`)', async () => {
    const signedIn = await grpcSignIn();
    const { response } = await ok(sessions, 'ListSessions', {}, bearer(signedIn.accessToken));
    expect(response.sessions[0].ip).toBe('127.0.0.*');
  });

  it('CreateWsTicket issues a ticket valid 30 seconds', async () => {
    const signedIn = await grpcSignIn();
    const { response } = await ok(auth, 'CreateWsTicket', {}, bearer(signedIn.accessToken));
    expect(response).toMatchObject({ success: true, expires_in: 30 });
    expect(response.ticket).not.toBe('');
    const expiresIn = Date.parse(response.expires_at) - Date.now();
    expect(expiresIn).toBeGreaterThan(25_000);
    expect(expiresIn).toBeLessThanOrEqual(30_000);
  });

  it('without credentials an authenticated RPC is UNAUTHENTICATED', async () => {
    expect(failure(await call(sessions, 'ListSessions', {}))).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'UNAUTHORIZED',
    });
    expect(failure(await call(auth, 'CreateWsTicket', {}))).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'UNAUTHORIZED',
    });
  });

  it('a refresh token as Bearer is UNAUTHENTICATED', async () => {
    const signedIn = await grpcSignIn();
    expect(
      failure(await call(sessions, 'ListSessions', {}, bearer(signedIn.refreshToken))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
    expect(
      failure(await call(auth, 'CreateWsTicket', {}, bearer(signedIn.refreshToken))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
    // The refresh token was not spent by being refused as a Bearer token.
    await ok(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken });
  });

  it('a malformed Authorization value is UNAUTHENTICATED, also on a public RPC', async () => {
    expect(
      failure(await call(sessions, 'ListSessions', {}, { authorization: 'Basic abc' })),
    ).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(
      failure(await call(auth, 'CheckUsername', { username: 'someone' }, bearer('not.a.jwt'))),
    ).toMatchObject({ code: 'UNAUTHENTICATED' });
  });
});

describe('Logout over gRPC', () => {
  it('ends the session: its access token and refresh token are refused afterwards', async () => {
    const signedIn = await grpcSignIn();
    const { response } = await ok(sessions, 'Logout', {}, bearer(signedIn.accessToken));
    expect(response).toEqual({ success: true, message: 'Signed out' });
    expect(
      failure(await call(sessions, 'ListSessions', {}, bearer(signedIn.accessToken))),
    ).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'UNAUTHORIZED' });
    expect(
      failure(await call(auth, 'CreateWsTicket', {}, bearer(signedIn.accessToken))),
    ).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(failure(await call(sessions, 'Logout', {}, bearer(signedIn.accessToken)))).toMatchObject(
      { code: 'UNAUTHENTICATED' },
    );
    expect(
      failure(await call(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken })),
    ).toMatchObject({ code: 'UNAUTHENTICATED' });
    // Over REST too.
    const overRest = await rest('/api/v1/auth/sessions', {
      headers: { authorization: `Bearer ${signedIn.accessToken}` },
    });
    expect(overRest.status).toBe(401);
  });

  it('ends only the current session of the account', async () => {
    const first = await grpcSignIn();
    const { response: second } = await ok(
      auth,
      'Initialize',
      await first.user.initializeBody('sign-in'),
    );
    await ok(sessions, 'Logout', {}, bearer(first.accessToken));
    const { response } = await ok(sessions, 'ListSessions', {}, bearer(second.access_token));
    expect(response.sessions.map((s: { id: string }) => s.id)).toEqual([second.session_id]);
  });
});

describe('one pipeline for both transports', () => {
  it('a session opened over gRPC is visible over REST with the same token', async () => {
    const signedIn = await grpcSignIn();
    const response = await rest('/api/v1/auth/sessions', {
      headers: { authorization: `Bearer ${signedIn.accessToken}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as {
      success: boolean;
      sessions: { id: string; current: boolean; user_agent: string }[];
    };
    expect(body.success).toBe(true);
    expect(body.sessions).toHaveLength(1);
    expect(body.sessions[0]).toMatchObject({ id: signedIn.sessionId, current: true });
    expect(body.sessions[0]!.user_agent).toMatch(/grpc-node-js/);
  });

  it('a session opened over REST is visible over gRPC, and both list the same sessions', async () => {
    const overRest = await signIn(service.baseUrl);
    const { response: overGrpc } = await ok(
      auth,
      'Initialize',
      await overRest.user.initializeBody('sign-in'),
    );
    const listedByGrpc = await ok(sessions, 'ListSessions', {}, bearer(overRest.accessToken));
    const listedByRest = (await (
      await rest('/api/v1/auth/sessions', {
        headers: { authorization: `Bearer ${overGrpc.access_token}` },
      })
    ).json()) as { sessions: { id: string }[] };
    const ids = (list: { id: string }[]) => list.map((s) => s.id).sort();
    expect(ids(listedByGrpc.response.sessions)).toEqual(
      [overRest.sessionId, overGrpc.session_id].sort(),
    );
    expect(ids(listedByRest.sessions)).toEqual(ids(listedByGrpc.response.sessions));
    // Each transport marks its own caller's session current.
    expect(listedByGrpc.response.sessions[0]).toMatchObject({
      id: overRest.sessionId,
      current: true,
    });
    expect(listedByRest.sessions[0]).toMatchObject({ id: overGrpc.session_id, current: true });
  });

  it('a refresh token issued over gRPC is exchanged over REST, and its reuse over gRPC is detected', async () => {
    const signedIn = await grpcSignIn();
    const exchanged = await rest('/api/v1/auth/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: signedIn.refreshToken }),
    });
    expect(exchanged.status).toBe(200);
    const reuse = await call(auth, 'RefreshToken', { refresh_token: signedIn.refreshToken });
    expect(failure(reuse)).toMatchObject({ code: 'UNAUTHENTICATED', reason: 'REPLAY_DETECTED' });
  });

  it('a signature spent over REST is a replay over gRPC', async () => {
    const user = new TestUser();
    const body = await user.initializeBody('register');
    const first = await rest('/api/v1/initialize', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(first.status).toBe(200);
    expect(failure(await call(auth, 'Initialize', body))).toMatchObject({
      code: 'UNAUTHENTICATED',
      reason: 'REPLAY_DETECTED',
    });
  });

  it('gRPC identity calls are counted in the RPC metrics with transport grpc', async () => {
    await grpcSignIn();
    const metrics = await (await rest('/metrics')).text();
    expect(metrics).toMatch(
      /rpc_requests_total\{service="AuthService",method="Initialize",code="ok",transport="grpc"\} [1-9]\d*/,
    );
  });
});
