/**
 * An access token of an ended session is refused at once: on the very next request after the
 * ending response, with no waiting for the 15-minute token lifetime or for any cache, whichever
 * way the session ended, over REST and over the WebSocket subprotocol fallback alike. The token
 * is used right before it ends, so that nothing about it is cold.
 */
import {
  expectAccessAccepted,
  expectAccessRefused,
  expectFailure,
  expectOk,
  signInAgain,
} from '../../support/session-api.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { connectWs, expectWsRefused } from '../../support/session-ws.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const running = serviceForThisFile();

interface Pair {
  readonly user: TestUser;
  /** The session that ends. */
  readonly target: SignedIn;
  /** Another session of the same account. */
  readonly other: SignedIn;
}

const endings: [string, (pair: Pair) => Promise<void>][] = [
  [
    'POST /api/v1/logout by the session itself',
    async ({ target }) => expectOk(await running.api.post('/api/v1/logout', {}, bearer(target))),
  ],
  [
    'POST /api/v1/auth/session/logout by the session itself',
    async ({ target }) =>
      expectOk(await running.api.post('/api/v1/auth/session/logout', {}, bearer(target))),
  ],
  [
    'DELETE /api/v1/auth/sessions/{id} from another session',
    async ({ target, other }) =>
      expectOk(
        await running.api.delete(`/api/v1/auth/sessions/${target.sessionId}`, bearer(other)),
      ),
  ],
  [
    'POST /api/v1/auth/logout-all (keep_current) from another session',
    async ({ other }) =>
      expectOk(
        await running.api.post('/api/v1/auth/logout-all', { keep_current: true }, bearer(other)),
      ),
  ],
  [
    'POST /api/v1/auth/revoke of its refresh token',
    async ({ target, other }) =>
      expectOk(
        await running.api.post(
          '/api/v1/auth/revoke',
          { refresh_token: target.refreshToken },
          bearer(other),
        ),
      ),
  ],
  [
    'reuse of its refresh token',
    async ({ target }) => {
      expectOk(await running.api.refresh(target.refreshToken));
      expectFailure(await running.api.refresh(target.refreshToken), 401, 'REPLAY_DETECTED');
    },
  ],
  [
    'eviction by five newer sign-ins',
    async ({ user }) => {
      for (let i = 0; i < 5; i++) await signInAgain(running.service.baseUrl, user);
    },
  ],
];

describe.each(endings)('a session ended by %s', (_name, end) => {
  it('is refused on the next REST request and WebSocket handshake', async () => {
    const user = new TestUser();
    const target = await signIn(running.service.baseUrl, user);
    const other = await signInAgain(running.service.baseUrl, user);
    await expectAccessAccepted(running.api, target.accessToken);
    expect(
      (await connectWs(running.service.baseUrl, { protocols: ['bearer', target.accessToken] }))
        .opened,
    ).toBe(true);

    await end({ user, target, other });

    await expectAccessRefused(running.api, target.accessToken);
    expectWsRefused(
      await connectWs(running.service.baseUrl, { protocols: ['bearer', target.accessToken] }),
      401,
    );
  });
});
