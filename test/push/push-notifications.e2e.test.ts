/**
 * Web Push end to end on one service, against a real local push service (HTTPS on loopback,
 * self-signed certificate trusted through PUSH_CA_FILE) that verifies each request's VAPID
 * signature and decrypts its payload with an independent RFC 8291 implementation: a burst of
 * messages to an offline device wakes it once, a device connected over /ws is never pushed,
 * the payload names only the kind of event (no ciphertext, no text), and the push service's
 * answers are honoured (410 removes the subscription, 503 is retried, 429 waits Retry-After).
 * Calls and sealed-sender envelopes wake too; ending a session removes its subscriptions.
 */
import { LocalPushService } from '../support/local-push-service.js';
import type { PushDevice, ReceivedPush } from '../support/local-push-service.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk, signInAgain, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

let pushService: LocalPushService;
beforeAll(async () => {
  pushService = await LocalPushService.start();
});
afterAll(() => pushService.stop());

const { service, api } = serviceForThisFile(() => ({
  PUSH_CA_FILE: pushService.caFile,
  PUSH_VAPID_SUBJECT: 'mailto:ops@example.org',
}));
const clients: RealtimeClient[] = [];
afterAll(() => clients.forEach((client) => client.close()));

let counter = 0;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const sendText = (from: SignedIn, to: SignedIn, text: string) =>
  api.post(
    '/api/v1/send',
    {
      client_message_id: `m-${Date.now()}-${++counter}`,
      recipient_address: to.user.address,
      ciphertext: b64(text),
    },
    bearer(from),
  );
const subscribe = (session: SignedIn, body: unknown) =>
  api.post('/api/v1/push/subscribe', body, bearer(session));
const subscribed = async (session: SignedIn, device: PushDevice) =>
  expectOk(await subscribe(session, device.subscription()));
const payloadOf = (push: ReceivedPush) => JSON.parse(push.plaintext!) as Record<string, unknown>;

describe('subscriptions', () => {
  let user: SignedIn;
  beforeAll(async () => {
    user = await signIn(service.baseUrl);
  });

  it('refuse every malformed subscription with 400 and store none of them', async () => {
    const device = pushService.device();
    const good = device.subscription();
    const offCurve = Buffer.from(good.keys.p256dh, 'base64url');
    offCurve[64]! ^= 1;
    const compressed = Buffer.from(good.keys.p256dh, 'base64url').subarray(0, 33);
    compressed[0] = 0x02;
    const variants: unknown[] = [
      {},
      { keys: good.keys },
      { endpoint: good.endpoint },
      { endpoint: good.endpoint.replace('https:', 'http:'), keys: good.keys },
      { endpoint: 'not a url', keys: good.keys },
      { endpoint: `${good.endpoint}/${'a'.repeat(2048)}`, keys: good.keys },
      { endpoint: good.endpoint.replace('https://', 'https://user:pw@'), keys: good.keys },
      { endpoint: good.endpoint, keys: { p256dh: good.keys.p256dh } },
      { endpoint: good.endpoint, keys: { auth: good.keys.auth } },
      {
        endpoint: good.endpoint,
        keys: { ...good.keys, auth: Buffer.alloc(15, 1).toString('base64url') },
      },
      {
        endpoint: good.endpoint,
        keys: { ...good.keys, auth: Buffer.alloc(17, 1).toString('base64url') },
      },
      { endpoint: good.endpoint, keys: { ...good.keys, auth: 'not*base64' } },
      { endpoint: good.endpoint, keys: { ...good.keys, p256dh: offCurve.toString('base64url') } },
      { endpoint: good.endpoint, keys: { ...good.keys, p256dh: compressed.toString('base64url') } },
      {
        endpoint: good.endpoint,
        keys: { ...good.keys, p256dh: Buffer.alloc(65, 4).toString('base64url') },
      },
      { endpoint: good.endpoint, keys: { ...good.keys, p256dh: '!!' } },
      { endpoint: good.endpoint, keys: good.keys, extra: 1 },
      { endpoint: 42, keys: good.keys },
    ];
    for (const body of variants)
      expectFailure(await subscribe(user, body), 400, 'INVALID_ARGUMENT');
    // Nothing was stored under that endpoint: subscribing it properly creates it.
    expect(await subscribed(user, device)).toMatchObject({ success: true, created: true });
  });

  it('are one record per endpoint: subscribing again updates, unsubscribing is idempotent', async () => {
    const device = pushService.device();
    const first = await subscribed(user, device);
    expect(first).toEqual({
      success: true,
      message: expect.any(String),
      subscription_id: expect.any(String),
      created: true,
    });
    const again = await subscribed(user, device);
    expect(again).toMatchObject({ created: false, subscription_id: first.subscription_id });
    expect(
      expectOk(
        await api.post('/api/v1/push/unsubscribe', { endpoint: device.endpoint }, bearer(user)),
      ),
    ).toMatchObject({ removed: true });
    expect(
      expectOk(
        await api.post('/api/v1/push/unsubscribe', { endpoint: device.endpoint }, bearer(user)),
      ),
    ).toMatchObject({ removed: false });
    expectFailure(
      await api.post('/api/v1/push/unsubscribe', {}, bearer(user)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/push/subscribe', device.subscription()),
      401,
      'UNAUTHORIZED',
    );
  });

  it('publish the VAPID public key: a P-256 point', async () => {
    expectFailure(await api.get('/api/v1/push/vapid-public-key'), 401, 'UNAUTHORIZED');
    const reply = expectOk(await api.get('/api/v1/push/vapid-public-key', bearer(user)));
    const point = Buffer.from(reply.public_key, 'base64url');
    expect(point).toHaveLength(65);
    expect(point[0]).toBe(4);
  });

  it('go with the session that subscribed them (logout)', async () => {
    const owner = await signIn(service.baseUrl);
    const device = pushService.device();
    await subscribed(owner, device);
    expectOk(await api.post('/api/v1/logout', {}, bearer(owner)));
    const again = await signInAgain(service.baseUrl, owner.user);
    expect(await subscribed(again, device)).toMatchObject({ created: true });
  });
});

describe('delivery', () => {
  let alice: SignedIn;
  let bob: SignedIn;
  beforeAll(async () => {
    [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  });

  it('wakes an offline device once for a burst of messages, with a payload that holds no content, signed with the published VAPID key', async () => {
    const device = pushService.device();
    await subscribed(bob, device);
    const texts = ['first secret words', 'second secret', 'third', 'fourth', 'fifth'];
    for (const text of texts) expectOk(await sendText(alice, bob, text));
    const [push] = await pushService.waitForRequests(device, 1);
    await sleep(1500);
    expect(pushService.requestsTo(device)).toHaveLength(1);
    const payload = payloadOf(push!);
    expect(payload).toEqual({
      kind: 'message',
      conversation_id: expect.stringMatching(/^dm:/),
      seq: 1,
    });
    for (const text of texts) {
      expect(push!.plaintext).not.toContain(text);
      expect(push!.plaintext).not.toContain(b64(text));
    }
    expect(push!.headers).toMatchObject({
      'content-encoding': 'aes128gcm',
      urgency: 'normal',
      topic: 'message',
    });
    expect(Number(push!.headers.ttl)).toBeGreaterThan(3600);
    expect(push!.vapid.sub).toBe('mailto:ops@example.org');
    expect(push!.vapid.k).toBe(
      expectOk(await api.get('/api/v1/push/vapid-public-key', bearer(bob))).public_key,
    );
    expect(pushService.protocolErrors).toEqual([]);
  });

  it("skips a device connected over /ws and wakes the same user's other, offline device", async () => {
    const online = pushService.device();
    const offline = pushService.device();
    const carol = await signIn(service.baseUrl);
    const carolElsewhere = await signInAgain(service.baseUrl, carol.user);
    await subscribed(carol, online);
    await subscribed(carolElsewhere, offline);
    const socket = await RealtimeClient.connect(
      service.baseUrl,
      service.baseUrl,
      carol.accessToken,
    );
    clients.push(socket);
    expectOk(await sendText(alice, carol, 'are you there'));
    await socket.next('message.new');
    await pushService.waitForRequests(offline, 1);
    await sleep(1000);
    expect(pushService.requestsTo(online)).toEqual([]);
    expect(pushService.requestsTo(offline)).toHaveLength(1);
  });

  it('removes a subscription the push service reports gone (410)', async () => {
    const device = pushService.device();
    const dave = await signIn(service.baseUrl);
    await subscribed(dave, device);
    device.respondWith({ status: 410 });
    expectOk(await sendText(alice, dave, 'hello'));
    await pushService.waitForRequests(device, 1);
    await waitFor(async () => (await subscribed(dave, device)).created === true);
  });

  it('retries a push the push service could not take (503) and delivers it', async () => {
    const device = pushService.device();
    const erin = await signIn(service.baseUrl);
    await subscribed(erin, device);
    device.respondWith({ status: 503 });
    expectOk(await sendText(alice, erin, 'hello'));
    const [failed, delivered] = await pushService.waitForRequests(device, 2, 15_000);
    expect([failed!.status, delivered!.status]).toEqual([503, 201]);
    expect(delivered!.at - failed!.at).toBeGreaterThanOrEqual(900);
    expect(payloadOf(delivered!)).toMatchObject({ kind: 'message' });
  });

  it('waits as long as a 429 says in Retry-After before trying again', async () => {
    const device = pushService.device();
    const frank = await signIn(service.baseUrl);
    await subscribed(frank, device);
    device.respondWith({ status: 429, headers: { 'retry-after': '3' } });
    expectOk(await sendText(alice, frank, 'hello'));
    const [throttled, delivered] = await pushService.waitForRequests(device, 2, 15_000);
    expect([throttled!.status, delivered!.status]).toEqual([429, 201]);
    expect(delivered!.at - throttled!.at).toBeGreaterThanOrEqual(2900);
  });

  it("wakes every other member of a group for a member's message, never the sender, and not for group events", async () => {
    const [dave, erin] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const [senderDevice, daveDevice, erinDevice] = [
      pushService.device(),
      pushService.device(),
      pushService.device(),
    ];
    await Promise.all([
      subscribed(alice, senderDevice),
      subscribed(dave, daveDevice),
      subscribed(erin, erinDevice),
    ]);
    const groupId = expectOk(
      await api.post(
        '/api/v1/groups/create',
        { name: 'Push', member_addresses: [dave.user.address, erin.user.address] },
        bearer(alice),
      ),
    ).group.id as string;
    expectOk(
      await api.post(`/api/v1/groups/${groupId}/rename`, { name: 'Push renamed' }, bearer(alice)),
    );
    await sleep(1000);
    // Creating and renaming are server-written events: nobody was woken for them.
    expect(pushService.requestsTo(daveDevice)).toHaveLength(0);
    const sent = expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: `g-${Date.now()}`, group_id: groupId, ciphertext: b64('group words') },
        bearer(alice),
      ),
    );
    const [toDave] = await pushService.waitForRequests(daveDevice, 1);
    const [toErin] = await pushService.waitForRequests(erinDevice, 1);
    for (const push of [toDave!, toErin!]) {
      expect(payloadOf(push)).toEqual({
        kind: 'group_message',
        conversation_id: `group:${groupId}`,
        seq: sent.chat_message.sequence,
      });
      expect(push.plaintext).not.toContain(b64('group words'));
    }
    await sleep(1000);
    expect(pushService.requestsTo(senderDevice)).toHaveLength(0);
  });

  it('wakes the callee of a call, with high urgency and a short TTL', async () => {
    const device = pushService.device();
    const grace = await signIn(service.baseUrl);
    await subscribed(grace, device);
    const caller = await RealtimeClient.connect(
      service.baseUrl,
      service.baseUrl,
      alice.accessToken,
    );
    clients.push(caller);
    expect(
      await caller.request({
        type: 'call.offer',
        call_id: `call-${Date.now()}`,
        to: grace.user.address,
        sdp: 'v=0 offer',
      }),
    ).toMatchObject({ type: 'ack' });
    const [push] = await pushService.waitForRequests(device, 1);
    expect(payloadOf(push!)).toEqual({ kind: 'call' });
    expect(push!.headers.urgency).toBe('high');
    expect(Number(push!.headers.ttl)).toBeLessThanOrEqual(60);
  });

  it('wakes the recipient of a sealed-sender envelope without naming anyone', async () => {
    const device = pushService.device();
    const heidi = await signIn(service.baseUrl);
    await subscribed(heidi, device);
    const body = {
      recipient_address: heidi.user.address,
      sealed_payload: b64('sealed bytes'),
      client_message_id: `s-${Date.now()}`,
    };
    expect(expectOk(await api.post('/api/v1/relay/sealed-v3', body, bearer(alice)))).toMatchObject({
      delivered: false,
    });
    const [push] = await pushService.waitForRequests(device, 1);
    expect(payloadOf(push!)).toEqual({ kind: 'sealed_message' });
    expect(push!.plaintext).not.toContain(alice.user.address.toLowerCase().slice(2));
  });

  it('counts what it did in /metrics', async () => {
    const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
    expect(metrics).toMatch(/^push_sent_total\{kind="message"\} [1-9]/m);
    expect(metrics).toMatch(/^push_retries_total\{reason="server_error"\} [1-9]/m);
    expect(metrics).toMatch(/^push_retries_total\{reason="throttled"\} [1-9]/m);
    expect(metrics).toMatch(/^push_subscriptions_removed_total\{reason="gone"\} [1-9]/m);
    expect(metrics).toMatch(/^push_skipped_total\{reason="connected"\} [1-9]/m);
    expect(metrics).toMatch(/^push_skipped_total\{reason="coalesced"\} [1-9]/m);
    expect(metrics).toMatch(/^push_queue_depth \d+/m);
    expect(metrics).toMatch(/^push_queue_oldest_due_seconds \d/m);
  });
});

async function waitFor(condition: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(100);
  }
}
