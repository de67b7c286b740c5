/**
 * What protects the realtime tier and the users on it, on one real process: the spec's
 * WebSocket limits (per user, across connections), the per-call ICE cap, frame validation,
 * the backpressure bound that drops a slow consumer without slowing others, and heartbeats that
 * close dead connections.
 */
import WebSocket from 'ws';
import { Api, expectOk, sleep } from '../support/session-api.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { serviceForEachTest } from '../support/service-for-tests.js';
import type { TestService } from '../support/start-service.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const clients: RealtimeClient[] = [];

/** A fresh service with `env` for each test of the enclosing describe, and two users signed in on it. */
function servicePerTest(env: Record<string, string>) {
  afterEach(() => {
    for (const client of clients.splice(0)) client.close();
  });
  const { service } = serviceForEachTest(env);
  const users: SignedIn[] = [];
  beforeEach(async () => {
    users.splice(0, users.length, await signIn(service.baseUrl), await signIn(service.baseUrl));
  });
  return (run: (service: TestService, users: SignedIn[]) => Promise<void>) => run(service, users);
}

async function connect(
  service: TestService,
  session: SignedIn,
  options = {},
): Promise<RealtimeClient> {
  const client = await RealtimeClient.connect(
    service.baseUrl,
    service.baseUrl,
    session.accessToken,
    undefined,
    options,
  );
  clients.push(client);
  return client;
}

describe('limits (RATE_LIMITS_ENABLED=true)', () => {
  const withService = servicePerTest({ RATE_LIMITS_ENABLED: 'true' });

  it('signaling beyond 10 per minute (burst 5) is refused with retry_after, per user across connections', () =>
    withService(async (service, [alice, bob]) => {
      const [first, second] = [await connect(service, alice!), await connect(service, alice!)];
      await connect(service, bob!);
      const answers = [];
      for (let i = 0; i < 6; i += 1) {
        const socket = i % 2 === 0 ? first : second;
        answers.push(
          await socket.request({
            type: 'call.offer',
            call_id: `limit-${i}`,
            to: bob!.user.address,
            sdp: 'v=0',
          }),
        );
      }
      expect(answers.slice(0, 5).map((answer) => answer.type)).toEqual([
        'ack',
        'ack',
        'ack',
        'ack',
        'ack',
      ]);
      expect(answers[5]).toMatchObject({ type: 'error', code: 'RATE_LIMIT_EXCEEDED' });
      expect(answers[5]!.retry_after).toBeGreaterThanOrEqual(1);
    }));

  it('at most 50 ICE candidates per call for both parties together', () =>
    withService(async (service, [alice, bob]) => {
      const [aliceSocket, bobSocket] = [
        await connect(service, alice!),
        await connect(service, bob!),
      ];
      expect(
        await aliceSocket.request({
          type: 'call.offer',
          call_id: 'ice-cap',
          to: bob!.user.address,
          sdp: 'v=0',
        }),
      ).toMatchObject({ type: 'ack' });
      const send = (socket: RealtimeClient, n: number) =>
        socket.request({
          type: 'call.ice_candidate',
          call_id: 'ice-cap',
          candidate: `candidate:${n}`,
        });
      for (let i = 0; i < 30; i += 1)
        expect(await send(aliceSocket, i)).toMatchObject({ type: 'ack' });
      for (let i = 0; i < 20; i += 1)
        expect(await send(bobSocket, 100 + i)).toMatchObject({ type: 'ack' });
      const refused = await send(bobSocket, 999);
      expect(refused).toMatchObject({ type: 'error', code: 'RATE_LIMIT_EXCEEDED' });
      expect(refused.retry_after).toBeUndefined();
      expect(bobSocket.ofType('call.ice_candidate')).toHaveLength(30);
    }));
});

describe('frames', () => {
  const withService = servicePerTest({});

  it('bad frames get an error frame and the connection stays open', () =>
    withService(async (service, [alice, bob]) => {
      const socket = await connect(service, alice!);
      socket.socket.send('not json');
      expect(await socket.next('error')).toMatchObject({ code: 'INVALID_ARGUMENT', ref: null });
      expect(await socket.request({ type: 'dance' })).toMatchObject({
        type: 'error',
        code: 'UNKNOWN_TYPE',
      });
      expect(
        await socket.request({
          type: 'call.offer',
          call_id: 'bad id!',
          to: bob!.user.address,
          sdp: 'x',
        }),
      ).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(
        await socket.request({ type: 'call.offer', call_id: 'ok', to: 'nobody', sdp: 'x' }),
      ).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(
        await socket.request({
          type: 'call.offer',
          call_id: 'ok',
          to: bob!.user.address,
          sdp: 'x'.repeat(20_000),
        }),
      ).toMatchObject({ code: 'INVALID_ARGUMENT' });
      expect(
        await socket.request({ type: 'call.answer', call_id: 'never-offered', sdp: 'x' }),
      ).toMatchObject({ code: 'NOT_FOUND' });
      expect(await socket.request({ type: 'ping' })).toMatchObject({ type: 'pong' });
    }));

  it('a malformed resume position is refused at the handshake with 400', () =>
    withService(async (service) => {
      const socket = new WebSocket(
        `${service.baseUrl.replace('http', 'ws')}/ws?stream=x&last_seq=abc`,
      );
      const status = await new Promise<number>((resolve, reject) => {
        socket.once('unexpected-response', (_, response) => resolve(response.statusCode ?? 0));
        socket.once('open', () => reject(new Error('the upgrade was accepted')));
        socket.once('error', () => undefined);
      });
      socket.terminate();
      expect(status).toBe(400);
    }));
});

describe('slow consumers and dead connections', () => {
  describe('WS_MAX_BUFFERED_BYTES=16384', () => {
    const withService = servicePerTest({ WS_MAX_BUFFERED_BYTES: '16384' });

    it('a consumer that stops reading is closed at the backpressure bound while others keep receiving', () =>
      withService(async (service, [alice, bob]) => {
        const api = new Api(service.baseUrl);
        const [slow, healthy] = [await connect(service, bob!), await connect(service, bob!)];
        // The slow device stops reading: the kernel buffers fill, then the server's queue grows.
        (slow.socket as unknown as { _socket: { pause(): void } })._socket.pause();
        const big = Buffer.alloc(60_000, 7).toString('base64');
        const total = 120;
        for (let i = 0; i < total; i += 1) {
          expectOk(
            await api.post(
              '/api/v1/send',
              {
                client_message_id: `flood-${i}`,
                recipient_address: bob!.user.address,
                ciphertext: big,
              },
              bearer(alice!),
            ),
          );
        }
        await healthy.next('message.new', () => true, 10_000, total);
        expect(healthy.ofType('message.new').map((frame) => frame.seq)).toEqual(
          Array.from({ length: total }, (_, i) => healthy.hello.seq + i + 1),
        );
        (slow.socket as unknown as { _socket: { resume(): void } })._socket.resume();
        // 1013 when the close frame gets through; a client this far behind may only see the reset.
        expect([1013, 1006]).toContain(await slow.waitClosed(10_000));
        expect(slow.ofType('message.new').length).toBeLessThan(total);
        const metrics = await (await fetch(`${service.baseUrl}/metrics`)).text();
        expect(metrics).toMatch(/^ws_slow_consumers_dropped_total [1-9]/m);
        expect(metrics).toMatch(/^ws_events_delivered_total\{kind="durable"\} [1-9]/m);
        expect(metrics).toMatch(/^ws_fanout_latency_seconds_count [1-9]/m);
        // It comes back with its position and catches up on what it lost.
        const back = await RealtimeClient.connect(
          service.baseUrl,
          service.baseUrl,
          bob!.accessToken,
          slow.position,
        );
        clients.push(back);
        expect(back.hello.resumed).toBe(true);
        await back.next(
          'message.new',
          () => true,
          10_000,
          total - slow.ofType('message.new').length,
        );
      }));
  });

  describe('WS_HEARTBEAT_SECONDS=8', () => {
    const withService = servicePerTest({ WS_HEARTBEAT_SECONDS: '8' });

    it(
      'a connection that answers no pings is closed by the heartbeat',
      () =>
        withService(async (service, [alice]) => {
          const silent = await connect(service, alice!, { autoPong: false });
          const answering = await connect(service, alice!);
          const closed = await silent.waitClosed(25_000);
          expect(closed).not.toBe(1000);
          await sleep(100);
          expect(answering.closeCode).toBeUndefined();
        }),
      40_000,
    );
  });
});
