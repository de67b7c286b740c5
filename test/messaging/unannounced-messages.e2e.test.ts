/**
 * A stored message is announced on `/ws` even when its `message.new` could not be published at
 * send time (docs/realtime.md, "How delivery works"): the stored message is its own outbox
 * record. Run on the cluster of one api and two ws processes with a Redis of its own.
 *
 * The publish is made to fail deterministically, without racing a kill: the recipient's event
 * counter in Redis is overwritten with a value Redis cannot increment, so the real publishing
 * script fails for that user (as it fails when Redis cannot be reached) while Redis keeps its
 * data and every other call (authentication, the sender's own stream) works. Restoring the
 * counter is Redis answering again.
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { adminConnection } from '../platform/shared-state/redis-for-tests.js';
import { deploymentForThisBlock } from '../support/private-deployment.js';
import type { RealtimeClient } from '../support/realtime-client.js';
import { expectOk, sleep } from '../support/session-api.js';
import { bearer } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

/** The sweeper announces a message left unannounced this long after it was stored (message-announcer.ts). */
const SWEEPER_GRACE_MS = 5000;

const running = deploymentForThisBlock('cluster');
let redis: Redis;
let alice: SignedIn;
let bob: SignedIn;
let alicesDevice: RealtimeClient;
let bobsDevice: RealtimeClient;

beforeAll(async () => {
  redis = await adminConnection(running.deployment.redis.url);
  [alice, bob] = [await running.deployment.signIn(), await running.deployment.signIn()];
  alicesDevice = await running.connect(alice.accessToken, running.deployment.wsUrls[0]!);
  bobsDevice = await running.connect(bob.accessToken, running.deployment.wsUrls[1]!);
  // A first message, so that both users' event counters exist before one is broken.
  const first = await send('first');
  await bobsDevice.next('message.new', (frame) => frame.data.message.id === first.id);
}, 60_000);
afterAll(async () => {
  await redis?.quit();
});

async function send(clientMessageId: string): Promise<{ id: string; duplicate: boolean }> {
  const reply = await running.deployment.http.post(
    '/api/v1/send',
    {
      client_message_id: clientMessageId,
      recipient_address: bob.user.address,
      ciphertext: Buffer.from(clientMessageId).toString('base64'),
    },
    bearer(alice),
  );
  const body = expectOk(reply);
  return { id: body.chat_message.id, duplicate: body.duplicate };
}

/** Makes publishing to `user`'s event stream fail until the returned function is called. */
async function breakEventStream(user: SignedIn): Promise<() => Promise<void>> {
  const counter = `svc:ev:{${user.user.address.toLowerCase()}}:seq`;
  const value = await redis.get(counter);
  if (value === null) throw new Error(`no event counter at ${counter}`);
  await redis.set(counter, 'not-a-number', 'KEEPTTL');
  return async () => {
    await redis.set(counter, value, 'KEEPTTL');
  };
}

const announcementsOf = (device: RealtimeClient, messageId: string) =>
  device.ofType('message.new').filter((frame) => frame.data.message.id === messageId);

/** The device got the message once, within `timeoutMs`, with no resync order. */
async function expectAnnouncedOnce(
  device: RealtimeClient,
  messageId: string,
  timeoutMs: number,
): Promise<void> {
  await device.next('message.new', (frame) => frame.data.message.id === messageId, timeoutMs);
  await sleep(300); // a second announcement would follow the first closely
  expect({
    announcements: announcementsOf(device, messageId).length,
    resyncs: device.ofType('resync_required'),
  }).toEqual({ announcements: 1, resyncs: [] });
}

it('a message whose event could not be published is announced once publishing works again', async () => {
  const restore = await breakEventStream(bob);
  const sent = await send(`outage-${randomUUID()}`);
  await sleep(500);
  expect(announcementsOf(bobsDevice, sent.id)).toEqual([]);
  await restore();

  await expectAnnouncedOnce(bobsDevice, sent.id, SWEEPER_GRACE_MS + 10_000);
  // The sender's own stream took the event at send time; it is not handed over again.
  expect(announcementsOf(alicesDevice, sent.id)).toHaveLength(1);
}, 30_000);

it('a retry that finds the message stored but unannounced announces it at once', async () => {
  const restore = await breakEventStream(bob);
  const clientMessageId = `retry-${randomUUID()}`;
  const sentAt = Date.now();
  const sent = await send(clientMessageId);
  await restore();

  expect(await send(clientMessageId)).toEqual({ id: sent.id, duplicate: true });
  // Well before the sweeper would have announced it.
  await expectAnnouncedOnce(
    bobsDevice,
    sent.id,
    Math.max(500, SWEEPER_GRACE_MS - 2000 - (Date.now() - sentAt)),
  );
  expect(announcementsOf(alicesDevice, sent.id)).toHaveLength(1);
}, 30_000);

it('a message stored by an api process that died before announcing it is announced after the restart', async () => {
  const restore = await breakEventStream(bob);
  const sent = await send(`crash-${randomUUID()}`);
  await running.deployment.api.kill();
  await restore();
  await running.deployment.api.restart();

  // Bob's connection is on a ws pod, which stayed up: it hears of the message without reconnecting.
  await expectAnnouncedOnce(bobsDevice, sent.id, SWEEPER_GRACE_MS + 10_000);
  expect(bobsDevice.closeCode).toBeUndefined();
}, 60_000);
