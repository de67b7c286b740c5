/**
 * Live location sharing over real HTTP, native gRPC and real WebSocket clients, on the
 * single-process embedded default: the audience sees the session start, its updates (at most
 * one per 5 s), and its end by stop, by expiry (LOCATION_MIN_DURATION_SECONDS=1 allows
 * 2-second sessions), by a new session to the same target, by a block and by the owner's account
 * deletion; bad input on every route gets the envelope and the right status.
 */
import { fileURLToPath } from 'node:url';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { realtimeClientsForThisFile } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { deleteAccountSigned } from '../support/signed-request.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'false',
  LOCATION_MIN_DURATION_SECONDS: '1',
});
const connect = realtimeClientsForThisFile(service);

const addressOf = (session: SignedIn) => session.user.address.toLowerCase();
const start = (owner: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/location/start', body, bearer(owner));
const update = (owner: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/location/update', body, bearer(owner));
const stop = (owner: SignedIn, sessionId: string) =>
  api.post('/api/v1/location/stop', { session_id: sessionId }, bearer(owner));
const here = (latitude: number) => ({ latitude, longitude: 13.4, accuracy_m: 12.5 });

/** Alice, Bob connected to /ws, and a session from Alice to Bob. */
async function sharing(durationSeconds = 600) {
  const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const bobSocket = await connect(bob);
  const session = expectOk(
    await start(alice, { peer_address: bob.user.address, duration_seconds: durationSeconds }),
  ).session;
  return { alice, bob, bobSocket, sessionId: session.session_id as string, session };
}

const ofSession = (sessionId: string) => (frame: Frame) => frame.data.session_id === sessionId;

it('starts a session the peer hears of, relays positions live at most once per 5 s, and stops', async () => {
  const { alice, bob, bobSocket, sessionId, session } = await sharing();
  expect(session).toMatchObject({
    owner_address: addressOf(alice),
    peer_address: addressOf(bob),
    group_id: '',
    state: 'active',
    stopped_at: '',
  });
  expect(Date.parse(session.expires_at) - Date.parse(session.started_at)).toBe(600_000);
  expect((await bobSocket.next('location.started', ofSession(sessionId))).data).toMatchObject({
    owner_address: addressOf(alice),
    state: 'active',
  });

  const first = expectOk(await update(alice, { session_id: sessionId, ...here(52.5) }));
  expect(first).toMatchObject({ session_id: sessionId, expires_at: session.expires_at });
  expect((await bobSocket.next('location.updated', ofSession(sessionId))).data).toMatchObject({
    latitude: 52.5,
    longitude: 13.4,
    accuracy_m: 12.5,
    heading_deg: null,
    speed_mps: null,
  });
  // Accepted, but within 5 s of the relayed one: not relayed.
  expectOk(await update(alice, { session_id: sessionId, ...here(52.6) }));
  expectOk(
    await update(alice, {
      session_id: sessionId,
      ciphertext: Buffer.from('sealed').toString('base64'),
    }),
  );
  await sleep(5_100);
  expectOk(
    await update(alice, {
      session_id: sessionId,
      ciphertext: Buffer.from('sealed later').toString('base64'),
    }),
  );
  const second = await bobSocket.next('location.updated', ofSession(sessionId), 5000, 2);
  expect(second.data).toMatchObject({ ciphertext: Buffer.from('sealed later').toString('base64') });
  expect(second.data.latitude).toBeUndefined();
  expect(bobSocket.ofType('location.updated').filter(ofSession(sessionId))).toHaveLength(2);

  const stopped = expectOk(await stop(alice, sessionId)).session;
  expect(stopped).toMatchObject({ session_id: sessionId, state: 'stopped' });
  expect(stopped.stopped_at).not.toBe('');
  expect((await bobSocket.next('location.ended', ofSession(sessionId))).data).toMatchObject({
    state: 'stopped',
  });
  expectFailure(await update(alice, { session_id: sessionId, ...here(1) }), 410, 'GONE');
  expect(expectOk(await stop(alice, sessionId)).session).toEqual(stopped);
}, 20_000);

it('ends a session at its expiry without any update, and the peer is told', async () => {
  const { alice, bobSocket, sessionId } = await sharing(2);
  expectOk(await update(alice, { session_id: sessionId, ...here(10) }));
  const ended = await bobSocket.next('location.ended', ofSession(sessionId), 6000);
  expect(ended.data).toMatchObject({ state: 'expired', stopped_at: '' });
  expectFailure(await update(alice, { session_id: sessionId, ...here(11) }), 410, 'GONE');
  expect(expectOk(await stop(alice, sessionId)).session).toMatchObject({ state: 'expired' });
});

it('a block by the peer ends the session at once: the owner gets 410, the peer no more positions', async () => {
  const { alice, bob, bobSocket, sessionId } = await sharing();
  expectOk(await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(bob)));
  expect((await bobSocket.next('location.ended', ofSession(sessionId))).data).toMatchObject({
    state: 'stopped',
  });
  expectFailure(await update(alice, { session_id: sessionId, ...here(1) }), 410, 'GONE');
  expect(bobSocket.ofType('location.updated').filter(ofSession(sessionId))).toEqual([]);
});

it('a block by the owner ends its session, and the owner cannot start one to the blocked user (403)', async () => {
  const { alice, bob, bobSocket, sessionId } = await sharing();
  expectOk(await api.post('/api/v1/block-contact', { address: bob.user.address }, bearer(alice)));
  await bobSocket.next('location.ended', ofSession(sessionId));
  expectFailure(await update(alice, { session_id: sessionId, ...here(1) }), 410, 'GONE');
  expectFailure(await start(alice, { peer_address: bob.user.address }), 403, 'FORBIDDEN');
});

it('a session to a peer who had already blocked the owner starts and takes updates, but the peer receives nothing', async () => {
  const [alice, bob, carol] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  expectOk(await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(bob)));
  const bobSocket = await connect(bob);
  const sessionId = expectOk(await start(alice, { peer_address: bob.user.address })).session
    .session_id;
  expectOk(await update(alice, { session_id: sessionId, ...here(1) }));
  expectOk(await stop(alice, sessionId));
  // A message sent afterwards reaches Bob's socket after anything published before it.
  expectOk(
    await api.post(
      '/api/v1/send',
      {
        client_message_id: `w-${Date.now()}`,
        recipient_address: bob.user.address,
        ciphertext: 'aGk=',
      },
      bearer(carol),
    ),
  );
  await bobSocket.next('message.new');
  expect(
    bobSocket.frames.filter(
      (frame) => frame.type.startsWith('location.') && frame.data.session_id === sessionId,
    ),
  ).toEqual([]);
});

it("the owner's account deletion ends its session: the peer is told and hears nothing more", async () => {
  const { alice, bobSocket, sessionId } = await sharing();
  expectOk(await update(alice, { session_id: sessionId, ...here(1) }));
  await bobSocket.next('location.updated', ofSession(sessionId));
  expectOk(await deleteAccountSigned(api, alice));
  expect((await bobSocket.next('location.ended', ofSession(sessionId))).data).toMatchObject({
    state: 'stopped',
  });
  expect(bobSocket.ofType('location.updated').filter(ofSession(sessionId))).toHaveLength(1);
});

it('starting again to the same target stops the previous session; other targets are independent', async () => {
  const { alice, bob, bobSocket, sessionId } = await sharing();
  const carol = await signIn(service.baseUrl);
  const toCarol = expectOk(await start(alice, { peer_address: carol.user.address })).session;
  expect(Date.parse(toCarol.expires_at) - Date.parse(toCarol.started_at)).toBe(3_600_000);
  const again = expectOk(
    await start(alice, { peer_address: bob.user.address.toUpperCase().replace('0X', '0x') }),
  ).session;
  expect(again.session_id).not.toBe(sessionId);
  expect((await bobSocket.next('location.ended', ofSession(sessionId))).data.state).toBe('stopped');
  expectFailure(await update(alice, { session_id: sessionId, ...here(1) }), 410, 'GONE');
  expectOk(await update(alice, { session_id: again.session_id, ...here(1) }));
  expectOk(await update(alice, { session_id: toCarol.session_id, ...here(1) }));
});

it('answers bad input on every route with the envelope and the right status', async () => {
  const { alice, bob, sessionId } = await sharing();
  const mallory = await signIn(service.baseUrl);
  const peer = bob.user.address;
  for (const body of [
    {},
    { peer_address: peer, group_id: 'g1' },
    { peer_address: 'bob' },
    { peer_address: alice.user.address },
    { peer_address: peer, duration_seconds: 28_801 },
    { peer_address: peer, duration_seconds: -5 },
    { peer_address: peer, extra: true },
  ]) {
    expectFailure(await start(alice, body), 400, 'INVALID_ARGUMENT');
  }
  expectFailure(await start(alice, { peer_address: '0x' + '9'.repeat(40) }), 404, 'NOT_FOUND');
  expectFailure(await start(alice, { group_id: 'no-such-group' }), 404, 'NOT_FOUND');

  const ciphertext = (bytes: number) => Buffer.alloc(bytes, 1).toString('base64');
  for (const body of [
    { ...here(1) },
    { session_id: sessionId },
    { session_id: sessionId, latitude: 1 },
    { session_id: sessionId, longitude: 1 },
    { session_id: sessionId, ciphertext: ciphertext(10), ...here(1) },
    { session_id: sessionId, ciphertext: ciphertext(10), speed_mps: 1 },
    { session_id: sessionId, ciphertext: ciphertext(4097) },
    { session_id: sessionId, latitude: 90.0001, longitude: 0 },
    { session_id: sessionId, latitude: 0, longitude: -180.5 },
    { session_id: sessionId, ...here(1), heading_deg: 360 },
    { session_id: sessionId, ...here(1), accuracy_m: -1 },
    { session_id: sessionId, ...here(1), speed_mps: 1000.5 },
    { session_id: sessionId, latitude: 'north', longitude: 0 },
    { session_id: 'x'.repeat(65), ...here(1) },
  ]) {
    expectFailure(await update(alice, body), 400, 'INVALID_ARGUMENT');
  }
  expectOk(
    await update(alice, {
      session_id: sessionId,
      latitude: -90,
      longitude: 180,
      heading_deg: 359.9,
      accuracy_m: 0,
      speed_mps: 1000,
    }),
  );
  expectOk(await update(alice, { session_id: sessionId, ciphertext: ciphertext(4096) }));
  expectFailure(await update(alice, { session_id: 'unknown', ...here(1) }), 404, 'NOT_FOUND');
  expectFailure(await update(mallory, { session_id: sessionId, ...here(1) }), 404, 'NOT_FOUND');

  expectFailure(
    await api.post('/api/v1/location/stop', {}, bearer(alice)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await stop(alice, 'unknown'), 404, 'NOT_FOUND');
  expectFailure(await stop(mallory, sessionId), 404, 'NOT_FOUND');
  for (const [path, body] of [
    ['start', { peer_address: peer }],
    ['update', { session_id: sessionId, ...here(1) }],
    ['stop', { session_id: sessionId }],
  ] as const) {
    expectFailure(await api.post(`/api/v1/location/${path}`, body), 401, 'UNAUTHORIZED');
  }
});

it('refuses over native gRPC what JSON cannot even express: a NaN or infinite coordinate', async () => {
  const { alice, sessionId } = await sharing();
  const client = grpcClient(
    service.grpcAddress,
    fileURLToPath(new URL('../../proto/service/v1/location.proto', import.meta.url)),
    'service.v1.LocationService',
  );
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${alice.accessToken}`);
  for (const latitude of [Number.NaN, Number.POSITIVE_INFINITY]) {
    await expect(
      unary(client, 'UpdateLocation', { session_id: sessionId, latitude, longitude: 1 }, metadata),
    ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  }
  expect(
    await unary(
      client,
      'UpdateLocation',
      { session_id: sessionId, latitude: 1, longitude: 1 },
      metadata,
    ),
  ).toMatchObject({ success: true, session_id: sessionId });
  client.close();
});
