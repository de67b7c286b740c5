/**
 * The realtime tier as deployed: three real processes on one real Redis — one `api` (REST and
 * storage) and two `ws` pods — and real WebSocket clients. A message sent over REST to the api
 * reaches the recipient on whichever ws pod holds its connections; a reconnecting client gets
 * exactly what it missed; calls are signaled across pods; a ws pod shutting down tells its
 * clients to reconnect.
 */
import { generateKeyPairSync } from 'node:crypto';
import { startChildService } from '../support/child-service.js';
import type { ChildService } from '../support/child-service.js';
import { expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { RealtimeClient } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('cluster');
  const signingKey = generateKeyPairSync('ed25519')
    .privateKey.export({ format: 'pem', type: 'pkcs8' })
    .toString();
  // Rate limits on, as in production, so the WebSocket limits apply; the HTTP buckets are
  // widened because every test request comes from 127.0.0.1 and the spec's sign-in bucket
  // (5 per minute, burst 2) would refuse the third sign-in.
  const wide = { limit: 100_000, burst: 10_000 };
  const overrides = JSON.stringify({
    ip: wide,
    user: wide,
    auth: wide,
    default: wide,
    'AuthService.Initialize': wide,
    'MessagesService.SendMessage': wide,
  });
  const shared = {
    REDIS_URL: redisUrl,
    REDIS_KEY_PREFIX: prefix,
    JWT_SIGNING_KEY: signingKey,
    RATE_LIMITS_ENABLED: 'true',
    RATE_LIMIT_OVERRIDES: overrides,
  };
  const { service: apiPod, api } = serviceForThisFile(
    { ...shared, ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' },
    { start: startChildService },
  );
  const { service: ws1 } = serviceForThisFile(
    { ...shared, ROLE: 'ws' },
    { start: startChildService },
  );
  const { service: ws2 } = serviceForThisFile(
    { ...shared, ROLE: 'ws' },
    { start: startChildService },
  );
  let alice: SignedIn;
  let bob: SignedIn;
  const clients: RealtimeClient[] = [];

  beforeAll(async () => {
    [alice, bob] = await Promise.all([signIn(apiPod.baseUrl), signIn(apiPod.baseUrl)]);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    await deleteKeys(redisUrl, prefix);
  });

  const connect = async (
    session: SignedIn,
    pod: ChildService,
    resume?: { stream: string; seq: number },
  ) => {
    const client = await RealtimeClient.connect(
      apiPod.baseUrl,
      pod.baseUrl,
      session.accessToken,
      resume,
    );
    clients.push(client);
    return client;
  };
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  let counter = 0;
  const send = (from: SignedIn, to: SignedIn, text: string, extra: Record<string, unknown> = {}) =>
    api.post(
      '/api/v1/send',
      {
        client_message_id: `c${++counter}-${Date.now()}`,
        recipient_address: to.user.address,
        ciphertext: b64(text),
        ...extra,
      },
      bearer(from),
    );
  const pair = async () => [await signIn(apiPod.baseUrl), await signIn(apiPod.baseUrl)] as const;
  const texts = (frames: Frame[]) =>
    frames.map((frame) => Buffer.from(frame.data.message.ciphertext, 'base64').toString());

  it("A sends over REST to the api; B, connected to another ws pod, receives it, as does each of B's devices", async () => {
    const [bobOnWs2, bobOnWs1, aliceOnWs1] = await Promise.all([
      connect(bob, ws2),
      connect(bob, ws1),
      connect(alice, ws1),
    ]);
    const sent = expectOk(await send(alice, bob, 'across pods')).chat_message;
    for (const device of [bobOnWs2, bobOnWs1]) {
      expect((await device.next('message.new')).data.message).toMatchObject({
        id: sent.id,
        sender_address: alice.user.address.toLowerCase(),
      });
    }
    expect((await aliceOnWs1.next('message.new')).data.message.id).toBe(sent.id);
    // Each device sees the user's one sequence.
    expect((await bobOnWs1.next('message.new')).seq).toBe((await bobOnWs2.next('message.new')).seq);
    bobOnWs1.close();
    bobOnWs2.close();
    aliceOnWs1.close();
  });

  it('B drops; A sends three more; B reconnects (to the other pod) with its last position and receives exactly those three, in order', async () => {
    const bobFirst = await connect(bob, ws2);
    expectOk(await send(alice, bob, 'before the drop'));
    await bobFirst.next('message.new');
    const position = bobFirst.position;
    bobFirst.close();
    await bobFirst.waitClosed();
    for (const text of ['one', 'two', 'three']) expectOk(await send(alice, bob, text));

    const bobAgain = await connect(bob, ws1, position);
    expect(bobAgain.hello).toMatchObject({
      resumed: true,
      stream: position.stream,
      seq: position.seq + 3,
    });
    const caughtUp = await bobAgain.next('message.new', () => true, 5000, 3);
    const received = bobAgain.ofType('message.new');
    expect(texts(received)).toEqual(['one', 'two', 'three']);
    expect(received.map((frame) => frame.seq)).toEqual([
      position.seq + 1,
      position.seq + 2,
      position.seq + 3,
    ]);
    expect(caughtUp.seq).toBe(position.seq + 3);
    // And live delivery goes on after the replay, without repeats.
    expectOk(await send(alice, bob, 'four'));
    await bobAgain.next('message.new', () => true, 5000, 4);
    expect(texts(bobAgain.ofType('message.new'))).toEqual(['one', 'two', 'three', 'four']);
    bobAgain.close();
  });

  it('a position that cannot be replayed gets resync_required instead of a silent gap', async () => {
    const fromAnotherStream = await connect(bob, ws1, { stream: 'not-this-stream', seq: 1 });
    expect(fromAnotherStream.hello.resumed).toBe(false);
    const resync = await fromAnotherStream.next('resync_required');
    expect(resync.stream).toBe(fromAnotherStream.hello.stream);
    const fromTheFuture = await connect(bob, ws2, {
      stream: fromAnotherStream.hello.stream,
      seq: fromAnotherStream.hello.seq + 100,
    });
    await fromTheFuture.next('resync_required');
    fromAnotherStream.close();
    fromTheFuture.close();
  });

  it('call signaling is relayed between pods, and refused once either side has blocked the other', async () => {
    const [aliceOnWs1, bobOnWs2] = await Promise.all([connect(alice, ws1), connect(bob, ws2)]);
    const callId = `call-${Date.now()}`;
    expect(
      await aliceOnWs1.request({
        type: 'call.offer',
        call_id: callId,
        to: bob.user.address,
        sdp: 'v=0 offer',
        media: 'video',
      }),
    ).toMatchObject({ type: 'ack' });
    expect((await bobOnWs2.next('call.offer')).data).toEqual({
      call_id: callId,
      from_address: alice.user.address.toLowerCase(),
      media: 'video',
      sdp: 'v=0 offer',
    });
    expect(
      await bobOnWs2.request({ type: 'call.answer', call_id: callId, sdp: 'v=0 answer' }),
    ).toMatchObject({ type: 'ack' });
    expect((await aliceOnWs1.next('call.answer')).data.sdp).toBe('v=0 answer');
    expect(
      await aliceOnWs1.request({
        type: 'call.ice_candidate',
        call_id: callId,
        candidate: 'candidate:1 1 udp 1 10.0.0.1 9 typ host',
        sdp_mid: '0',
        sdp_mline_index: 0,
      }),
    ).toMatchObject({ type: 'ack' });
    expect((await bobOnWs2.next('call.ice_candidate')).data).toMatchObject({
      call_id: callId,
      sdp_mid: '0',
      sdp_mline_index: 0,
    });
    expect(await bobOnWs2.request({ type: 'call.hangup', call_id: callId })).toMatchObject({
      type: 'ack',
    });
    await aliceOnWs1.next('call.hangup');
    // Nobody else can signal on a call that is not theirs.
    expect(
      await bobOnWs2.request({ type: 'call.ice_candidate', call_id: callId, candidate: 'x' }),
    ).toMatchObject({ type: 'error', code: 'NOT_FOUND' });

    expectOk(await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(bob)));
    expect(
      await aliceOnWs1.request({
        type: 'call.offer',
        call_id: `${callId}-2`,
        to: bob.user.address,
        sdp: 'v=0',
      }),
    ).toMatchObject({ type: 'error', code: 'CALL_REFUSED' });
    expect(
      await bobOnWs2.request({
        type: 'call.offer',
        call_id: `${callId}-3`,
        to: alice.user.address,
        sdp: 'v=0',
      }),
    ).toMatchObject({ type: 'error', code: 'CALL_REFUSED' });
    expectOk(
      await api.post('/api/v1/unblock-contact', { address: alice.user.address }, bearer(bob)),
    );
    expect(
      await aliceOnWs1.request({
        type: 'call.offer',
        call_id: `${callId}-4`,
        to: bob.user.address,
        sdp: 'v=0',
      }),
    ).toMatchObject({ type: 'ack' });
    expect(bobOnWs2.ofType('call.offer').map((frame) => frame.data.call_id)).not.toContain(
      `${callId}-2`,
    );
    aliceOnWs1.close();
    bobOnWs2.close();
  });

  it('a retried send yields one message, delivered once', async () => {
    const [carol, dave] = await pair();
    const daveOnWs2 = await connect(dave, ws2);
    const id = `retry-${Date.now()}`;
    const first = expectOk(await send(carol, dave, 'only once', { client_message_id: id }));
    const again = expectOk(await send(carol, dave, 'only once', { client_message_id: id }));
    expect(again).toMatchObject({ duplicate: true, chat_message: { id: first.chat_message.id } });
    expectOk(await send(carol, dave, 'marker'));
    await daveOnWs2.next('message.new', () => true, 5000, 2);
    expect(texts(daveOnWs2.ofType('message.new'))).toEqual(['only once', 'marker']);
    expect(
      expectOk(await api.get(`/api/v1/messages?peer_address=${carol.user.address}`, bearer(dave)))
        .messages,
    ).toHaveLength(2);
    daveOnWs2.close();
  });

  it('view-once opens once then 410, and its sender on another pod learns it was viewed', async () => {
    const [erin, frank] = await pair();
    const erinOnWs1 = await connect(erin, ws1);
    const sent = expectOk(await send(erin, frank, 'see me once', { view_once: true })).chat_message;
    const path = `/api/v1/messages/view-once/${erin.user.address}/${sent.id}`;
    expect(expectOk(await api.post(path, {}, bearer(frank))).chat_message.ciphertext).toBe(
      b64('see me once'),
    );
    const again = await api.post(path, {}, bearer(frank));
    expect(again.status).toBe(410);
    expect(again.body).toMatchObject({ success: false, code: 'GONE' });
    expect((await erinOnWs1.next('message.viewed')).data).toMatchObject({
      message_id: sent.id,
      viewer_address: frank.user.address.toLowerCase(),
    });
    erinOnWs1.close();
  });

  it('a disappearing message is gone after its timer; typing reaches the other pod and is never stored', async () => {
    const [gina, hank] = await pair();
    const hankOnWs2 = await connect(hank, ws2);
    expectOk(await api.post('/api/v1/typing', { peer_address: hank.user.address }, bearer(gina)));
    expect((await hankOnWs2.next('typing')).data).toMatchObject({
      from_address: gina.user.address.toLowerCase(),
      state: 'typing',
    });
    expectOk(
      await api.post(
        '/api/v1/chat/disappearing-timer',
        { peer_address: hank.user.address, disappearing_timer_seconds: 5 },
        bearer(gina),
      ),
    );
    const fleeting = expectOk(await send(gina, hank, 'gone soon')).chat_message;
    const read = async () =>
      expectOk(await api.get(`/api/v1/messages?peer_address=${gina.user.address}`, bearer(hank)))
        .messages as { id: string; kind: string }[];
    expect((await read()).map((message) => message.id)).toContain(fleeting.id);
    await new Promise((resolve) => setTimeout(resolve, 5500));
    // Only the (also expired) timer notice could have been stored: nothing of the typing indicator.
    expect(await read()).toEqual([]);
    hankOnWs2.close();
  });

  it('a blocked sender reaches nobody on any pod', async () => {
    const [ivy, jack] = await pair();
    const [jackOnWs1, jackOnWs2] = [await connect(jack, ws1), await connect(jack, ws2)];
    expectOk(await api.post('/api/v1/block-contact', { address: ivy.user.address }, bearer(jack)));
    expectOk(await send(ivy, jack, 'blocked words'));
    expectOk(await api.post('/api/v1/typing', { peer_address: jack.user.address }, bearer(ivy)));
    expectOk(await send(alice, jack, 'marker'));
    for (const device of [jackOnWs1, jackOnWs2]) {
      await device.next('message.new');
      expect(texts(device.ofType('message.new'))).toEqual(['marker']);
      expect(device.ofType('typing')).toEqual([]);
    }
    jackOnWs1.close();
    jackOnWs2.close();
  });

  it('signaling beyond the limits is refused, per user across pods', async () => {
    const [kim, liam] = await pair();
    const [kimOnWs1, kimOnWs2] = [await connect(kim, ws1), await connect(kim, ws2)];
    await connect(liam, ws1);
    const answers = [];
    for (let i = 0; i < 6; i += 1) {
      answers.push(
        await (i % 2 === 0 ? kimOnWs1 : kimOnWs2).request({
          type: 'call.offer',
          call_id: `limit-${Date.now()}-${i}`,
          to: liam.user.address,
          sdp: 'v=0',
        }),
      );
    }
    expect(answers.map((answer) => answer.type)).toEqual([
      'ack',
      'ack',
      'ack',
      'ack',
      'ack',
      'error',
    ]);
    expect(answers[5]).toMatchObject({ code: 'RATE_LIMIT_EXCEEDED' });
    kimOnWs1.close();
    kimOnWs2.close();
  });

  it('a ws pod shutting down closes its connections with 1012 and a reconnect hint; the client resumes on the other pod', async () => {
    const bobOnWs2 = await connect(bob, ws2);
    expectOk(await send(alice, bob, 'last before restart'));
    await bobOnWs2.next('message.new');
    const position = bobOnWs2.position;
    expect(await ws2.stop()).toBe(0);
    expect(await bobOnWs2.waitClosed()).toBe(1012);
    expect(bobOnWs2.closeReason).toMatch(/reconnect/);
    expectOk(await send(alice, bob, 'while reconnecting'));
    const resumed = await connect(bob, ws1, position);
    expect(texts([await resumed.next('message.new')])).toEqual(['while reconnecting']);
    resumed.close();
  });
});
