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
import { Api, expectOk } from '../support/session-api.js';
import { RealtimeClient } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { deleteKeys, uniqueTestPrefix, withRedis } from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const prefix = uniqueTestPrefix('cluster');
  const signingKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const shared = { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: prefix, JWT_SIGNING_KEY: signingKey, RATE_LIMITS_ENABLED: 'false', LOG_LEVEL: 'debug' };
  let apiPod: ChildService;
  let ws1: ChildService;
  let ws2: ChildService;
  let api: Api;
  let alice: SignedIn;
  let bob: SignedIn;
  const clients: RealtimeClient[] = [];

  beforeAll(async () => {
    [apiPod, ws1, ws2] = await Promise.all([
      startChildService({ ...shared, ROLE: 'api' }),
      startChildService({ ...shared, ROLE: 'ws' }),
      startChildService({ ...shared, ROLE: 'ws' }),
    ]);
    api = new Api(apiPod.baseUrl);
    [alice, bob] = await Promise.all([signIn(apiPod.baseUrl), signIn(apiPod.baseUrl)]);
  });
  afterAll(async () => {
    for (const client of clients) client.close();
    const outs = [ws1.output(), ws2.output()].join('\n').split('\n').filter((l) => !l.includes('"msg":"request"'));
    console.log(outs.join('\n').slice(0, 6000));
    await Promise.all([apiPod?.stop(), ws1?.stop(), ws2?.stop()]);
    await deleteKeys(redisUrl, prefix);
  });

  const connect = async (session: SignedIn, pod: ChildService, resume?: { stream: string; seq: number }) => {
    const client = await RealtimeClient.connect(apiPod.baseUrl, pod.baseUrl, session.accessToken, resume);
    clients.push(client);
    return client;
  };
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  let counter = 0;
  const send = (from: SignedIn, to: SignedIn, text: string) =>
    api.post('/api/v1/send', { client_message_id: `c${++counter}-${Date.now()}`, recipient_address: to.user.address, ciphertext: b64(text) }, bearer(from));
  const texts = (frames: Frame[]) => frames.map((frame) => Buffer.from(frame.data.message.ciphertext, 'base64').toString());

  it('A sends over REST to the api; B, connected to another ws pod, receives it, as does each of B\'s devices', async () => {
    const [bobOnWs2, bobOnWs1, aliceOnWs1] = await Promise.all([connect(bob, ws2), connect(bob, ws1), connect(alice, ws1)]);
    const sent = expectOk(await send(alice, bob, 'across pods')).chat_message;
    for (const device of [bobOnWs2, bobOnWs1]) {
      expect((await device.next('message.new')).data.message).toMatchObject({ id: sent.id, sender_address: alice.user.address.toLowerCase() });
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
    expect(bobAgain.hello).toMatchObject({ resumed: true, stream: position.stream, seq: position.seq + 3 });
    const caughtUp = await bobAgain.next('message.new', () => true, 5000, 3);
    const received = bobAgain.ofType('message.new');
    expect(texts(received)).toEqual(['one', 'two', 'three']);
    expect(received.map((frame) => frame.seq)).toEqual([position.seq + 1, position.seq + 2, position.seq + 3]);
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
    const fromTheFuture = await connect(bob, ws2, { stream: fromAnotherStream.hello.stream, seq: fromAnotherStream.hello.seq + 100 });
    await fromTheFuture.next('resync_required');
    fromAnotherStream.close();
    fromTheFuture.close();
  });

  it('call signaling is relayed between pods, and refused once either side has blocked the other', async () => {
    const [aliceOnWs1, bobOnWs2] = await Promise.all([connect(alice, ws1), connect(bob, ws2)]);
    const callId = `call-${Date.now()}`;
    expect(await aliceOnWs1.request({ type: 'call.offer', call_id: callId, to: bob.user.address, sdp: 'v=0 offer', media: 'video' })).toMatchObject({ type: 'ack' });
    expect((await bobOnWs2.next('call.offer')).data).toEqual({ call_id: callId, from_address: alice.user.address.toLowerCase(), media: 'video', sdp: 'v=0 offer' });
    expect(await bobOnWs2.request({ type: 'call.answer', call_id: callId, sdp: 'v=0 answer' })).toMatchObject({ type: 'ack' });
    expect((await aliceOnWs1.next('call.answer')).data.sdp).toBe('v=0 answer');
    expect(await aliceOnWs1.request({ type: 'call.ice_candidate', call_id: callId, candidate: 'candidate:1 1 udp 1 10.0.0.1 9 typ host', sdp_mid: '0', sdp_mline_index: 0 })).toMatchObject({ type: 'ack' });
    expect((await bobOnWs2.next('call.ice_candidate')).data).toMatchObject({ call_id: callId, sdp_mid: '0', sdp_mline_index: 0 });
    expect(await bobOnWs2.request({ type: 'call.hangup', call_id: callId })).toMatchObject({ type: 'ack' });
    await aliceOnWs1.next('call.hangup');
    // Nobody else can signal on a call that is not theirs.
    expect(await bobOnWs2.request({ type: 'call.ice_candidate', call_id: callId, candidate: 'x' })).toMatchObject({ type: 'error', code: 'NOT_FOUND' });

    expectOk(await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(bob)));
    expect(await aliceOnWs1.request({ type: 'call.offer', call_id: `${callId}-2`, to: bob.user.address, sdp: 'v=0' })).toMatchObject({ type: 'error', code: 'CALL_REFUSED' });
    expect(await bobOnWs2.request({ type: 'call.offer', call_id: `${callId}-3`, to: alice.user.address, sdp: 'v=0' })).toMatchObject({ type: 'error', code: 'CALL_REFUSED' });
    expectOk(await api.post('/api/v1/unblock-contact', { address: alice.user.address }, bearer(bob)));
    expect(await aliceOnWs1.request({ type: 'call.offer', call_id: `${callId}-4`, to: bob.user.address, sdp: 'v=0' })).toMatchObject({ type: 'ack' });
    expect(bobOnWs2.ofType('call.offer').map((frame) => frame.data.call_id)).not.toContain(`${callId}-2`);
    aliceOnWs1.close();
    bobOnWs2.close();
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
