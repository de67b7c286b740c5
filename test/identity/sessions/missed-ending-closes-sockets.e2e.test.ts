/**
 * A session ended while one ws pod could not hear the announcement (pub/sub delivers at most
 * once) still has its open sockets on that pod closed with 4401: the pod checks its sockets'
 * sessions against the ended-session marks once its subscription is back (session-sockets.ts).
 *
 * The cluster of one api and two ws processes on a Redis of its own; ws pod 0 reaches Redis
 * through a TCP proxy, so that it alone is cut off (its connections dropped, new ones refused)
 * while the session ends: the announcement is published while that pod has no subscriber
 * connection at all, deterministically.
 */
import { clusterWithCuttableWsPod } from '../../support/cuttable-ws-pod.js';
import type { RealtimeClient } from '../../support/realtime-client.js';
import { expectOk, signInAgain, sleep } from '../../support/session-api.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const { running, podZeroLink } = clusterWithCuttableWsPod();

const cutOffPod = () => running.deployment.wsUrls[0]!;
const connectedPod = () => running.deployment.wsUrls[1]!;

/** Two sessions of one account: the one that ends, and one that stays. */
async function twoSessions(): Promise<{ ending: SignedIn; staying: SignedIn }> {
  const user = new TestUser();
  const ending = await signIn(running.deployment.apiUrl, user);
  return { ending, staying: await signInAgain(running.deployment.apiUrl, user) };
}

/** The socket of the session that stays keeps receiving. */
async function expectStillReceiving(socket: RealtimeClient, staying: SignedIn): Promise<void> {
  const sender = await running.deployment.signIn();
  const sent = expectOk(
    await running.deployment.http.post(
      '/api/v1/send',
      {
        client_message_id: `still-${Date.now()}`,
        recipient_address: staying.user.address,
        ciphertext: Buffer.from('still here').toString('base64'),
      },
      bearer(sender),
    ),
  ).chat_message;
  expect(
    (await socket.next('message.new', (frame) => frame.data.message.id === sent.id, 10_000)).data
      .message.id,
  ).toBe(sent.id);
  expect(socket.closeCode).toBeUndefined();
}

async function expectClosedAsEnded(socket: RealtimeClient, timeoutMs: number): Promise<void> {
  expect(await socket.waitClosed(timeoutMs)).toBe(4401);
  expect(socket.closeReason).toMatch(/^session ended/);
}

it('a session ended while a ws pod was cut off from Redis has its socket there closed once the pod is back', async () => {
  const { ending, staying } = await twoSessions();
  const [onCutOffPod, onConnectedPod, stayingSocket] = [
    await running.connect(ending.accessToken, cutOffPod()),
    await running.connect(ending.accessToken, connectedPod()),
    await running.connect(staying.accessToken, cutOffPod()),
  ];

  podZeroLink().cut();
  expectOk(await running.deployment.http.post('/api/v1/logout', {}, bearer(ending)));
  await expectClosedAsEnded(onConnectedPod, 3000);
  // The cut-off pod cannot know yet.
  await sleep(1000);
  expect(onCutOffPod.closeCode).toBeUndefined();

  podZeroLink().restore();
  await expectClosedAsEnded(onCutOffPod, 10_000);
  await expectStillReceiving(stayingSocket, staying);
}, 60_000);

it('while the ended-session marks cannot vouch the check closes nothing, and it closes the ended session once they are rebuilt', async () => {
  const { deployment } = running;
  const { ending, staying } = await twoSessions();
  const [endingSocket, stayingSocket] = [
    await running.connect(ending.accessToken, cutOffPod()),
    await running.connect(staying.accessToken, cutOffPod()),
  ];

  podZeroLink().cut();
  expectOk(await deployment.http.post('/api/v1/logout', {}, bearer(ending)));
  // Redis comes back empty while no api process can rebuild the mirror of ended sessions from
  // the store: the marks cannot vouch for anything.
  await deployment.api.kill();
  await deployment.redis.restartEmpty();
  podZeroLink().restore();
  await sleep(3000);
  expect([endingSocket.closeCode, stayingSocket.closeCode]).toEqual([undefined, undefined]);

  // The api process is back and rebuilds the marks from the store (its session records).
  await deployment.api.restart();
  await expectClosedAsEnded(endingSocket, 15_000);
  await expectStillReceiving(stayingSocket, staying);
}, 90_000);
