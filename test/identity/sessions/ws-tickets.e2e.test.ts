/**
 * Opening /ws: with a single-use ticket from POST /api/v1/auth/ws-ticket (valid 30 s), or with
 * the JWT subprotocol fallback (`bearer, <access token>`). Every refused handshake is a 401 in
 * the failure envelope, before the upgrade.
 */
import { expectFailure, expectOk } from '../../support/session-api.js';
import { connectWs, expectWsRefused } from '../../support/session-ws.js';
import { bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';
import { serviceForThisFile } from '../../support/service-for-tests.js';

let session: SignedIn;
const { service, api } = serviceForThisFile();
beforeAll(async () => {
  session = await signIn(service.baseUrl);
});

const issueTicket = async (holder = session): Promise<string> =>
  expectOk(await api.post('/api/v1/auth/ws-ticket', {}, bearer(holder))).ticket;
// A fresh user's greeting: its position in its (still empty) event stream (docs/realtime.md).
const hello = (holder: SignedIn) => ({
  type: 'hello',
  address: holder.user.address.toLowerCase(),
  stream: '',
  seq: 0,
  resumed: false,
  heartbeat_seconds: 60,
});

describe('POST /api/v1/auth/ws-ticket', () => {
  it('issues a ticket valid 30 seconds', async () => {
    const before = Date.now();
    const body = expectOk(await api.post('/api/v1/auth/ws-ticket', {}, bearer(session)));
    expect(body).toEqual({
      success: true,
      message: expect.any(String),
      ticket: expect.stringMatching(/^[A-Za-z0-9_-]{20,100}$/),
      expires_in: 30,
      expires_at: expect.any(String),
    });
    const lifetime = Date.parse(body.expires_at) - before;
    expect(lifetime).toBeGreaterThanOrEqual(29_000);
    expect(lifetime).toBeLessThanOrEqual(31_000);
  });

  it('issues a different ticket every time', async () => {
    expect(await issueTicket()).not.toBe(await issueTicket());
  });
});

describe('a ticket', () => {
  it('opens /ws once: the server greets the ticket holder', async () => {
    const ticket = await issueTicket();
    expect(await connectWs(service.baseUrl, { ticket })).toEqual({
      opened: true,
      protocol: '',
      greeting: hello(session),
    });
  });

  it('is refused with 401 on its second use', async () => {
    const ticket = await issueTicket();
    expect((await connectWs(service.baseUrl, { ticket })).opened).toBe(true);
    expectWsRefused(await connectWs(service.baseUrl, { ticket }), 401);
  });

  it('opens the connection of the account it was issued to', async () => {
    const other = await signIn(service.baseUrl);
    expect(await connectWs(service.baseUrl, { ticket: await issueTicket(other) })).toMatchObject({
      opened: true,
      greeting: hello(other),
    });
  });

  it('is refused with 401 when made up, and so is a handshake without any credential', async () => {
    expectWsRefused(await connectWs(service.baseUrl, { ticket: 'A'.repeat(43) }), 401);
    expectWsRefused(await connectWs(service.baseUrl, { ticket: 'not a ticket' }), 401);
    expectWsRefused(await connectWs(service.baseUrl), 401);
  });

  it('is not an access token: a ticket as Bearer token is refused', async () => {
    const ticket = await issueTicket();
    expectFailure(await api.listSessions(ticket), 401, 'UNAUTHORIZED');
  });

  it('is refused once the session it was issued for has ended', async () => {
    const ending = await signIn(service.baseUrl);
    const ticket = await issueTicket(ending);
    expectOk(await api.post('/api/v1/logout', {}, bearer(ending)));
    expectWsRefused(await connectWs(service.baseUrl, { ticket }), 401);
  });

  it('is refused with 401 after 31 seconds', async () => {
    const ticket = await issueTicket();
    await new Promise((resolve) => setTimeout(resolve, 31_000));
    expectWsRefused(await connectWs(service.baseUrl, { ticket }), 401);
  }, 45_000);
});

describe('the JWT subprotocol fallback', () => {
  it('opens with `bearer, <access token>` and confirms the protocol `bearer`', async () => {
    const outcome = await connectWs(service.baseUrl, {
      protocols: ['bearer', session.accessToken],
    });
    expect(outcome).toEqual({ opened: true, protocol: 'bearer', greeting: hello(session) });
  });

  it('refuses a refresh token, a made-up token and another scheme', async () => {
    expectWsRefused(
      await connectWs(service.baseUrl, { protocols: ['bearer', session.refreshToken] }),
      401,
    );
    expectWsRefused(await connectWs(service.baseUrl, { protocols: ['bearer', 'a.b.c'] }), 401);
    expectWsRefused(
      await connectWs(service.baseUrl, { protocols: ['token', session.accessToken] }),
      401,
    );
  });

  it("refuses an ended session's access token", async () => {
    const ended = await signIn(service.baseUrl);
    expectOk(await api.post('/api/v1/logout', {}, bearer(ended)));
    expectWsRefused(
      await connectWs(service.baseUrl, { protocols: ['bearer', ended.accessToken] }),
      401,
    );
  });
});
