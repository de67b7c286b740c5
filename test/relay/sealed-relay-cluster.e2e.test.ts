/**
 * The sealed-sender relay as deployed: one api process (REST, store) and two ws pods on one
 * real Redis, with real WebSocket clients. An envelope sent to the api reaches the recipient's
 * connection on a ws pod exactly once; one sent while the recipient is offline is queued and
 * handed over when it connects, through another pod, and not again on later connections.
 */
import { clusterForThisFile } from '../support/cluster-for-tests.js';
import { expectOk, sleep } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { adminConnection, withRedis } from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const { prefix, apiPod, api, ws1, ws2, connect } = clusterForThisFile(redisUrl, 'relay');
  let sender: SignedIn;

  beforeAll(async () => {
    sender = await signIn(apiPod.baseUrl);
  });

  /** Waits until no ws pod holds the user's channel any more (the pod unsubscribes after the close). */
  const untilNoPodListens = async (session: SignedIn) => {
    const admin = await adminConnection(redisUrl);
    try {
      const channel = `${prefix}ev:{${session.user.address.toLowerCase()}}`;
      while (((await admin.pubsub('NUMSUB', channel)) as [string, number])[1] > 0) await sleep(20);
    } finally {
      admin.disconnect();
    }
  };
  let counter = 0;
  const sealed = (to: SignedIn) => ({
    recipient_address: to.user.address,
    sealed_payload: Buffer.from(`envelope ${++counter}`).toString('base64'),
    client_message_id: `c-${counter}-${Date.now()}`,
  });
  const send = (body: unknown) => api.post('/api/v1/relay/sealed-v3', body, bearer(sender));

  it('delivers an envelope once to the recipient connected to a ws pod, and not again on a retry', async () => {
    const recipient = await signIn(apiPod.baseUrl);
    const device = await connect(recipient, ws2);
    const body = sealed(recipient);
    const accepted = expectOk(await send(body));
    expect(accepted.delivered).toBe(true);
    expect((await device.next('sealed.message')).data).toEqual({
      message_id: accepted.message_id,
      sealed_payload: body.sealed_payload,
      received_at: accepted.received_at,
    });
    expect(expectOk(await send(body))).toMatchObject({
      duplicate: true,
      message_id: accepted.message_id,
    });
    await sleep(500);
    expect(device.ofType('sealed.message')).toHaveLength(1);
  });

  it('queues for an offline recipient, delivers when it connects to another pod, and only then', async () => {
    const recipient = await signIn(apiPod.baseUrl);
    const first = await connect(recipient, ws1);
    first.close();
    await first.waitClosed();
    await untilNoPodListens(recipient);
    const body = sealed(recipient);
    const accepted = expectOk(await send(body));
    expect(accepted.delivered).toBe(false);

    const back = await connect(recipient, ws2);
    expect((await back.next('sealed.message')).data).toMatchObject({
      message_id: accepted.message_id,
      sealed_payload: body.sealed_payload,
    });
    back.close();
    await back.waitClosed();

    const later = await connect(recipient, ws1);
    await sleep(500);
    expect(later.ofType('sealed.message')).toEqual([]);
  });
});
