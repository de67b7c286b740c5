/**
 * Browser sessions: the session cookie authenticates (GET /api/v1/session/me accepts nothing
 * else), cookie-authenticated unsafe requests need the double-submitted CSRF token, the CSRF
 * token rotates, and POST /api/v1/session/resume turns an access token back into fresh cookies.
 */
import {
  cookieAuth,
  expectFailure,
  expectOk,
  sessionCookies,
  setCookiesOf,
} from '../../support/session-api.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const running = serviceForThisFile();

const THIRTY_DAYS_S = String(30 * 24 * 3600);
const me = (headers: Record<string, string>) => running.api.get('/api/v1/session/me', headers);
const wsTicket = (headers: Record<string, string>) =>
  running.api.post('/api/v1/auth/ws-ticket', {}, headers);
/** Cookie and matching CSRF header of a session: what a well-behaved browser client sends. */
const browser = (session: SignedIn, csrf = session.csrfToken) =>
  cookieAuth({ ...sessionCookies(session), csrf }, csrf);

describe('GET /api/v1/session/me', () => {
  it('answers the session and the user to the session cookie', async () => {
    const session = await signIn(running.service.baseUrl);
    const body = expectOk(await me(cookieAuth(sessionCookies(session))));
    expect(body.session).toMatchObject({
      id: session.sessionId,
      current: true,
      auth_method: 'wallet',
    });
    expect(body.user).toEqual({
      address: session.user.address.toLowerCase(),
      username: session.user.username,
      display_name: 'Alice',
      mfa_enabled: false,
    });
  });

  it('is cookie-only: a Bearer token alone gets 401', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(await me(bearer(session)), 401, 'UNAUTHORIZED');
    expectFailure(await me({}), 401, 'UNAUTHORIZED');
  });

  it('refuses a session cookie whose secret does not match', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(
      await me(cookieAuth({ session: `${session.sessionId}.forged-secret` })),
      401,
      'UNAUTHORIZED',
    );
  });

  it('refuses the cookie of an ended session', async () => {
    const session = await signIn(running.service.baseUrl);
    expectOk(await running.api.post('/api/v1/logout', {}, bearer(session)));
    expectFailure(await me(cookieAuth(sessionCookies(session))), 401, 'UNAUTHORIZED');
  });
});

describe('CSRF protection of cookie-authenticated unsafe requests', () => {
  it('refuses a request without X-CSRF-Token with 403 CSRF_TOKEN_INVALID', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(await wsTicket(cookieAuth(sessionCookies(session))), 403, 'CSRF_TOKEN_INVALID');
  });

  it('refuses a wrong X-CSRF-Token', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(
      await wsTicket(cookieAuth(sessionCookies(session), 'wrong-token')),
      403,
      'CSRF_TOKEN_INVALID',
    );
  });

  it('refuses a header that does not match the CSRF cookie, or without the cookie', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(
      await wsTicket(cookieAuth({ ...sessionCookies(session), csrf: 'other' }, session.csrfToken)),
      403,
      'CSRF_TOKEN_INVALID',
    );
    expectFailure(
      await wsTicket(cookieAuth({ session: session.cookies.svc_session! }, session.csrfToken)),
      403,
      'CSRF_TOKEN_INVALID',
    );
  });

  it("refuses another session's CSRF token, even when header and cookie agree", async () => {
    const session = await signIn(running.service.baseUrl);
    const other = await signIn(running.service.baseUrl);
    expectFailure(
      await wsTicket(
        cookieAuth(
          { session: session.cookies.svc_session!, csrf: other.csrfToken },
          other.csrfToken,
        ),
      ),
      403,
      'CSRF_TOKEN_INVALID',
    );
  });

  it('accepts the right header with the right cookie', async () => {
    const session = await signIn(running.service.baseUrl);
    expect(expectOk(await wsTicket(browser(session)))).toMatchObject({
      ticket: expect.any(String),
      expires_in: 30,
    });
  });

  it('does not ask Bearer callers for a CSRF token', async () => {
    const session = await signIn(running.service.baseUrl);
    expectOk(await wsTicket(bearer(session)));
  });
});

describe('POST /api/v1/auth/csrf', () => {
  it('rotates the token: returned and set as cookie; the old one is refused, the new one accepted', async () => {
    const session = await signIn(running.service.baseUrl);
    const reply = await running.api.post('/api/v1/auth/csrf', {}, browser(session));
    const fresh = expectOk(reply).csrf_token as string;
    expect(fresh).toEqual(expect.any(String));
    expect(fresh).not.toBe(session.csrfToken);
    const set = setCookiesOf(reply);
    expect(Object.keys(set)).toEqual(['svc_csrf']);
    expect(set.svc_csrf!.value).toBe(fresh);

    expectFailure(await wsTicket(browser(session)), 403, 'CSRF_TOKEN_INVALID');
    expectOk(await wsTicket(browser(session, fresh)));
  });

  it('needs the current token itself when cookie-authenticated', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(
      await running.api.post('/api/v1/auth/csrf', {}, cookieAuth(sessionCookies(session))),
      403,
      'CSRF_TOKEN_INVALID',
    );
    expectOk(await wsTicket(browser(session)));
  });

  it('rotates for a Bearer caller too', async () => {
    const session = await signIn(running.service.baseUrl);
    const fresh = expectOk(await running.api.post('/api/v1/auth/csrf', {}, bearer(session)))
      .csrf_token as string;
    expectFailure(await wsTicket(browser(session)), 403, 'CSRF_TOKEN_INVALID');
    expectOk(await wsTicket(browser(session, fresh)));
  });
});

describe('POST /api/v1/session/resume', () => {
  it('returns the session and sets fresh session and CSRF cookies', async () => {
    const session = await signIn(running.service.baseUrl);
    const reply = await running.api.post('/api/v1/session/resume', {}, bearer(session));
    const body = expectOk(reply);
    expect(body.session).toMatchObject({ id: session.sessionId, current: true });
    expect(body.user.address).toBe(session.user.address.toLowerCase());

    const set = setCookiesOf(reply);
    expect(Object.keys(set).sort()).toEqual(['svc_csrf', 'svc_session']);
    expect(set.svc_session!.attributes).toMatchObject({
      httponly: '',
      secure: '',
      samesite: 'Strict',
      path: '/',
      'max-age': THIRTY_DAYS_S,
    });
    expect(set.svc_csrf!.attributes).toMatchObject({
      secure: '',
      samesite: 'Strict',
      path: '/',
      'max-age': THIRTY_DAYS_S,
    });
    expect(set.svc_csrf!.attributes).not.toHaveProperty('httponly');
    expect(set.svc_csrf!.value).toBe(body.csrf_token);
    expect(set.svc_session!.value).not.toBe(session.cookies.svc_session);

    const fresh = { session: set.svc_session!.value, csrf: set.svc_csrf!.value };
    expect(expectOk(await me(cookieAuth(fresh))).session.id).toBe(session.sessionId);
    expectOk(await wsTicket(cookieAuth(fresh, fresh.csrf)));
    // The previous cookie and CSRF token were replaced.
    expectFailure(await me(cookieAuth(sessionCookies(session))), 401, 'UNAUTHORIZED');
  });

  it('answers 401 without a token and for an ended session', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(await running.api.post('/api/v1/session/resume', {}), 401, 'UNAUTHORIZED');
    expectOk(await running.api.post('/api/v1/logout', {}, bearer(session)));
    expectFailure(
      await running.api.post('/api/v1/session/resume', {}, bearer(session)),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('POST /api/v1/auth/session/logout with the cookie', () => {
  it('needs the CSRF token, then ends the session and clears the cookies', async () => {
    const session = await signIn(running.service.baseUrl);
    expectFailure(
      await running.api.post(
        '/api/v1/auth/session/logout',
        {},
        cookieAuth(sessionCookies(session)),
      ),
      403,
      'CSRF_TOKEN_INVALID',
    );
    expectOk(await me(cookieAuth(sessionCookies(session))));

    const reply = await running.api.post('/api/v1/auth/session/logout', {}, browser(session));
    expectOk(reply);
    expect(
      Object.values(setCookiesOf(reply)).map((cookie) => cookie.attributes['max-age']),
    ).toEqual(['0', '0']);
    expectFailure(await me(cookieAuth(sessionCookies(session))), 401, 'UNAUTHORIZED');
    expectFailure(await running.api.listSessions(session.accessToken), 401, 'UNAUTHORIZED');
  });
});
