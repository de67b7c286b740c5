/**
 * Which sessions each ending route ends (SessionService.DeleteSession, LogoutAll, Logout,
 * LogoutCookieSession and AuthService.RevokeToken), and that it ends no other: an ended
 * session's access and refresh tokens are refused, the others' keep working.
 */
import {
  expectAccessAccepted,
  expectAccessRefused,
  expectFailure,
  expectOk,
  expectSessionEnded,
  setCookiesOf,
  signInAgain,
} from '../../support/session-api.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const running = serviceForThisFile();

/** `count` sessions of one new account. */
async function sessionsOfOneAccount(count: number): Promise<SignedIn[]> {
  const user = new TestUser();
  const sessions = [await signIn(running.service.baseUrl, user)];
  while (sessions.length < count) sessions.push(await signInAgain(running.service.baseUrl, user));
  return sessions;
}

async function expectAllActive(sessions: SignedIn[]): Promise<void> {
  for (const session of sessions) await expectAccessAccepted(running.api, session.accessToken);
}

describe('DELETE /api/v1/auth/sessions/{id}', () => {
  it('ends another session of the caller, and only that one', async () => {
    const [caller, target, bystander] = (await sessionsOfOneAccount(3)) as [
      SignedIn,
      SignedIn,
      SignedIn,
    ];
    const body = expectOk(
      await running.api.delete(`/api/v1/auth/sessions/${target.sessionId}`, bearer(caller)),
    );
    expect(body.current).toBe(false);
    await expectSessionEnded(running.api, target);
    await expectAllActive([caller, bystander]);
    const listed = expectOk(await running.api.listSessions(caller.accessToken));
    expect(listed.sessions.map((s: { id: string }) => s.id).sort()).toEqual(
      [caller.sessionId, bystander.sessionId].sort(),
    );
  });

  it('ends the current session when it names it', async () => {
    const [caller, other] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
    const body = expectOk(
      await running.api.delete(`/api/v1/auth/sessions/${caller.sessionId}`, bearer(caller)),
    );
    expect(body.current).toBe(true);
    await expectSessionEnded(running.api, caller);
    await expectAccessAccepted(running.api, other.accessToken);
  });

  it("answers 404 for another account's session, which stays active", async () => {
    const caller = await signIn(running.service.baseUrl);
    const stranger = await signIn(running.service.baseUrl);
    expectFailure(
      await running.api.delete(`/api/v1/auth/sessions/${stranger.sessionId}`, bearer(caller)),
      404,
      'NOT_FOUND',
    );
    await expectAccessAccepted(running.api, stranger.accessToken);
  });

  it('answers 404 for an unknown id and for a session that has already ended', async () => {
    const [caller, ended] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
    expectFailure(
      await running.api.delete('/api/v1/auth/sessions/no-such-session', bearer(caller)),
      404,
      'NOT_FOUND',
    );
    expectOk(await running.api.delete(`/api/v1/auth/sessions/${ended.sessionId}`, bearer(caller)));
    expectFailure(
      await running.api.delete(`/api/v1/auth/sessions/${ended.sessionId}`, bearer(caller)),
      404,
      'NOT_FOUND',
    );
  });

  it('requires authentication', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(
      await running.api.delete(`/api/v1/auth/sessions/${session.sessionId}`),
      401,
      'UNAUTHORIZED',
    );
    await expectAccessAccepted(running.api, session.accessToken);
  });
});

describe('POST /api/v1/auth/logout-all', () => {
  it('ends every session of the caller, the current one included, and no other account', async () => {
    const sessions = await sessionsOfOneAccount(3);
    const stranger = await signIn(running.service.baseUrl);
    const body = expectOk(
      await running.api.post('/api/v1/auth/logout-all', {}, bearer(sessions[1]!)),
    );
    expect(body.ended_count).toBe(3);
    for (const session of sessions) await expectSessionEnded(running.api, session);
    await expectAccessAccepted(running.api, stranger.accessToken);
  });

  it('with keep_current true ends all but the current session', async () => {
    const [first, caller, third] = (await sessionsOfOneAccount(3)) as [
      SignedIn,
      SignedIn,
      SignedIn,
    ];
    const body = expectOk(
      await running.api.post('/api/v1/auth/logout-all', { keep_current: true }, bearer(caller)),
    );
    expect(body.ended_count).toBe(2);
    await expectSessionEnded(running.api, first);
    await expectSessionEnded(running.api, third);
    await expectAccessAccepted(running.api, caller.accessToken);
    expectOk(await running.api.refresh(caller.refreshToken));
  });
});

describe('POST /api/v1/logout', () => {
  it('ends the current session only', async () => {
    const [caller, other] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
    expectOk(await running.api.post('/api/v1/logout', {}, bearer(caller)));
    await expectSessionEnded(running.api, caller);
    await expectAccessAccepted(running.api, other.accessToken);
  });

  it('requires authentication', async () => {
    expectFailure(await running.api.post('/api/v1/logout', {}), 401, 'UNAUTHORIZED');
  });
});

describe('POST /api/v1/auth/session/logout', () => {
  it('ends the current session, clears both cookies and refuses the presented access token', async () => {
    const [caller, other] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
    const reply = await running.api.post('/api/v1/auth/session/logout', {}, bearer(caller));
    expectOk(reply);
    const cleared = setCookiesOf(reply);
    expect(Object.keys(cleared).sort()).toEqual(['svc_csrf', 'svc_session']);
    for (const cookie of Object.values(cleared)) {
      expect(cookie.value).toBe('');
      expect(cookie.attributes['max-age']).toBe('0');
      expect(cookie.attributes.path).toBe('/');
    }
    await expectSessionEnded(running.api, caller);
    await expectAccessAccepted(running.api, other.accessToken);
  });
});

describe('POST /api/v1/auth/revoke', () => {
  it("ends the family of one of the caller's refresh tokens, and with it that session", async () => {
    const [caller, target] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
    const body = expectOk(
      await running.api.post(
        '/api/v1/auth/revoke',
        { refresh_token: target.refreshToken },
        bearer(caller),
      ),
    );
    expect(body.revoked).toBe(true);
    await expectSessionEnded(running.api, target);
    await expectAccessAccepted(running.api, caller.accessToken);
  });

  it('revokes the latest token of a rotated family, and is idempotent', async () => {
    const [caller, target] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
    const rotated = expectOk(await running.api.refresh(target.refreshToken));
    expect(
      expectOk(
        await running.api.post(
          '/api/v1/auth/revoke',
          { refresh_token: rotated.refresh_token },
          bearer(caller),
        ),
      ).revoked,
    ).toBe(true);
    await expectSessionEnded(running.api, {
      accessToken: rotated.access_token,
      refreshToken: rotated.refresh_token,
    });
    expect(
      expectOk(
        await running.api.post(
          '/api/v1/auth/revoke',
          { refresh_token: rotated.refresh_token },
          bearer(caller),
        ),
      ).revoked,
    ).toBe(false);
  });

  it("answers 403 for another account's refresh token, which keeps working", async () => {
    const caller = await signIn(running.service.baseUrl);
    const stranger = await signIn(running.service.baseUrl);
    expectFailure(
      await running.api.post(
        '/api/v1/auth/revoke',
        { refresh_token: stranger.refreshToken },
        bearer(caller),
      ),
      403,
      'FORBIDDEN',
    );
    await expectAccessAccepted(running.api, stranger.accessToken);
    expectOk(await running.api.refresh(stranger.refreshToken));
  });

  it('answers 400 without a refresh token or with an access token, and 401 without authentication', async () => {
    const caller = await signIn(running.service.baseUrl);
    expectFailure(
      await running.api.post('/api/v1/auth/revoke', {}, bearer(caller)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await running.api.post(
        '/api/v1/auth/revoke',
        { refresh_token: caller.accessToken },
        bearer(caller),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await running.api.post('/api/v1/auth/revoke', { refresh_token: caller.refreshToken }),
      401,
      'UNAUTHORIZED',
    );
    await expectAccessAccepted(running.api, caller.accessToken);
  });
});

it('an ended session cannot end anything any more', async () => {
  const [caller, other] = (await sessionsOfOneAccount(2)) as [SignedIn, SignedIn];
  expectOk(await running.api.post('/api/v1/logout', {}, bearer(caller)));
  expectFailure(
    await running.api.post('/api/v1/auth/logout-all', {}, bearer(caller)),
    401,
    'UNAUTHORIZED',
  );
  expectFailure(
    await running.api.delete(`/api/v1/auth/sessions/${other.sessionId}`, bearer(caller)),
    401,
    'UNAUTHORIZED',
  );
  await expectAccessRefused(running.api, caller.accessToken);
  await expectAccessAccepted(running.api, other.accessToken);
});
