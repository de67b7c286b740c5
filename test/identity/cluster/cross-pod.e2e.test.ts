/**
 * Two pods sharing one Redis and one signing key, as in a cluster: an `api` pod and a `ws` pod
 * (which has no storage). A ticket issued by the api pod opens /ws on the ws pod once, and a
 * session ended on the api pod is refused by the ws pod at once, with no shared database.
 */
import { generateKeyPairSync } from 'node:crypto';
import { serviceForThisFile } from '../../support/service-for-tests.js';
import { bearer, signIn } from '../../support/wallet.js';
import { connectWs, expectWsRefused } from '../../support/session-ws.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('cross-pod');
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  const shared = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, JWT_SIGNING_KEY: signingKey };
  const { service: api } = serviceForThisFile({
    ...shared,
    ROLE: 'api',
    ALLOW_EMBEDDED_STORE: 'true',
  });
  const { service: ws } = serviceForThisFile({ ...shared, ROLE: 'ws' });
  afterAll(() => deleteKeys(redisUrl, prefix));

  const ticketFor = async (accessToken: string) => {
    const response = await fetch(`${api.baseUrl}/api/v1/auth/ws-ticket`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { ticket: string }).ticket;
  };

  it('a ticket from the api pod opens /ws on the ws pod exactly once', async () => {
    const session = await signIn(api.baseUrl);
    const ticket = await ticketFor(session.accessToken);
    expect(await connectWs(ws.baseUrl, { ticket })).toMatchObject({
      opened: true,
      greeting: { type: 'hello', address: session.user.address.toLowerCase() },
    });
    expectWsRefused(await connectWs(ws.baseUrl, { ticket }), 401);
  });

  it('a session ended on the api pod is refused on the ws pod at once', async () => {
    const session = await signIn(api.baseUrl);
    const ticket = await ticketFor(session.accessToken);
    expect(
      await connectWs(ws.baseUrl, { protocols: ['bearer', session.accessToken] }),
    ).toMatchObject({ opened: true, protocol: 'bearer' });
    const logout = await fetch(`${api.baseUrl}/api/v1/logout`, {
      method: 'POST',
      headers: { ...bearer(session), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(logout.status).toBe(200);
    expectWsRefused(
      await connectWs(ws.baseUrl, { protocols: ['bearer', session.accessToken] }),
      401,
    );
    expectWsRefused(await connectWs(ws.baseUrl, { ticket }), 401);
  });
});
