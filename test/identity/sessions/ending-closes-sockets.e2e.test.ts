/**
 * Ending a session closes its open `/ws` connections at once, on every pod, with 4401 and the
 * reason `session ended` (docs/realtime.md), whichever way it ended; connections of the
 * account's other sessions stay open and keep receiving. Run on one process and on the cluster
 * of one api and two ws processes, each with its own Redis.
 */
import {
  Api,
  expectFailure,
  expectOk,
  sessionCookies,
  cookieAuth,
  signInAgain,
} from '../../support/session-api.js';
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
} from '../../support/private-deployment.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

interface Pair {
  readonly user: TestUser;
  /** The session that ends. */
  readonly target: SignedIn;
  /** Another session of the same account, which stays. */
  readonly other: SignedIn;
}

type Ending = (api: Api, apiUrl: string, pair: Pair) => Promise<void>;

const endings: [string, Ending][] = [
  [
    'POST /api/v1/logout',
    async (api, _url, { target }) => expectOk(await api.post('/api/v1/logout', {}, bearer(target))),
  ],
  [
    'POST /api/v1/auth/session/logout (cookie logout)',
    async (api, _url, { target }) =>
      expectOk(
        await api.post(
          '/api/v1/auth/session/logout',
          {},
          cookieAuth(sessionCookies(target), target.csrfToken),
        ),
      ),
  ],
  [
    'DELETE /api/v1/auth/sessions/{id}',
    async (api, _url, { target, other }) =>
      expectOk(await api.delete(`/api/v1/auth/sessions/${target.sessionId}`, bearer(other))),
  ],
  [
    'POST /api/v1/auth/logout-all (keep_current)',
    async (api, _url, { other }) =>
      expectOk(await api.post('/api/v1/auth/logout-all', { keep_current: true }, bearer(other))),
  ],
  [
    'POST /api/v1/auth/revoke',
    async (api, _url, { target, other }) =>
      expectOk(
        await api.post(
          '/api/v1/auth/revoke',
          { refresh_token: target.refreshToken },
          bearer(other),
        ),
      ),
  ],
  [
    'refresh-token reuse',
    async (api, _url, { target }) => {
      expectOk(await api.refresh(target.refreshToken));
      expectFailure(await api.refresh(target.refreshToken), 401, 'REPLAY_DETECTED');
    },
  ],
  [
    'the 5-session cap (four newer sign-ins make six)',
    async (_api, apiUrl, { user }) => {
      for (let i = 0; i < 4; i++) await signInAgain(apiUrl, user);
    },
  ],
];

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s', (shape) => {
  const running = deploymentForThisBlock(shape);

  /** One connection of the session on every ws pod. */
  const connectEverywhere = (session: SignedIn) =>
    Promise.all(
      running.deployment.wsUrls.map((wsUrl) => running.connect(session.accessToken, wsUrl)),
    );

  it.each(endings)(
    'a session ended by %s has its open sockets closed with 4401 on every pod',
    async (_name, end) => {
      const { deployment, api } = running;
      const user = new TestUser();
      const target = await signIn(deployment.apiUrl, user);
      const other = await signInAgain(deployment.apiUrl, user);
      const [targetSockets, otherSockets] = [
        await connectEverywhere(target),
        await connectEverywhere(other),
      ];

      await end(api, deployment.apiUrl, { user, target, other });

      for (const socket of targetSockets) {
        expect(await socket.waitClosed(3000)).toBe(4401);
        expect(socket.closeReason).toMatch(/^session ended/);
      }
      // The account's other session keeps its connections, and they keep receiving.
      const sender = await signIn(deployment.apiUrl);
      const sent = expectOk(
        await api.post(
          '/api/v1/send',
          {
            client_message_id: `after-${Date.now()}`,
            recipient_address: user.address,
            ciphertext: Buffer.from('still here').toString('base64'),
          },
          bearer(sender),
        ),
      ).chat_message;
      for (const socket of otherSockets)
        expect((await socket.next('message.new')).data.message.id).toBe(sent.id);
      expect(targetSockets.flatMap((socket) => socket.ofType('message.new'))).toEqual([]);
    },
  );
});
