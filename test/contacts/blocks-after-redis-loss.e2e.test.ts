/**
 * A block keeps refusing calls whatever happens to Redis: the ws pods read blocks from a mirror
 * in Redis, and after Redis restarted empty (or was frozen) that mirror is rebuilt from the
 * store without restarting any process. Until it is, a call offer is refused as UNAVAILABLE
 * (retry later), never relayed. Run on one process and on the cluster of one api and two ws
 * processes, each with its own Redis.
 */
import { expectOk } from '../support/session-api.js';
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
  eventually,
} from '../support/private-deployment.js';
import type { Frame, RealtimeClient } from '../support/realtime-client.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s with its own Redis', (shape) => {
  const running = deploymentForThisBlock(shape);

  /** Alice and Bob, Bob has blocked Alice; each connected, to different ws pods where there are two. */
  const blockedPair = async () => {
    const { deployment, api } = running;
    const [alice, bob] = [await signIn(deployment.apiUrl), await signIn(deployment.apiUrl)];
    expectOk(await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(bob)));
    const aliceSocket = await running.connect(alice.accessToken, deployment.wsUrls[0]!);
    const bobSocket = await running.connect(bob.accessToken, deployment.wsUrls.at(-1)!);
    return { alice, bob, aliceSocket, bobSocket };
  };

  let calls = 0;
  /** Offers calls until the answer is not UNAVAILABLE; every answer meanwhile is a refusal. */
  const settledOffer = (from: RealtimeClient, to: SignedIn) =>
    eventually(
      async () => {
        const answer: Frame = await from.request({
          type: 'call.offer',
          call_id: `blocked-${Date.now()}-${++calls}`,
          to: to.user.address,
          sdp: 'v=0',
        });
        if (answer.type === 'error' && answer.code === 'UNAVAILABLE') {
          expect(answer.retry_after).toBeGreaterThan(0);
          return undefined;
        }
        return answer;
      },
      20_000,
      'the block mirror rebuild',
    );

  it('Redis restarted empty: calls between them stay refused, in both directions', async () => {
    const { alice, bob, aliceSocket, bobSocket } = await blockedPair();
    expect(
      await aliceSocket.request({
        type: 'call.offer',
        call_id: `before-${Date.now()}`,
        to: bob.user.address,
        sdp: 'v=0',
      }),
    ).toMatchObject({ code: 'CALL_REFUSED' });
    await running.deployment.redis.restartEmpty();

    expect(await settledOffer(aliceSocket, bob)).toMatchObject({
      type: 'error',
      code: 'CALL_REFUSED',
    });
    expect(await settledOffer(bobSocket, alice)).toMatchObject({
      type: 'error',
      code: 'CALL_REFUSED',
    });
    expect(bobSocket.ofType('call.offer')).toEqual([]);
    expect(aliceSocket.ofType('call.offer')).toEqual([]);
  });

  it('Redis frozen: an offer is refused as UNAVAILABLE, and after the thaw still CALL_REFUSED', async () => {
    const { bob, aliceSocket, bobSocket } = await blockedPair();
    running.deployment.redis.freeze();
    try {
      expect(
        await aliceSocket.request({
          type: 'call.offer',
          call_id: `frozen-${Date.now()}`,
          to: bob.user.address,
          sdp: 'v=0',
        }),
      ).toMatchObject({ type: 'error', code: 'UNAVAILABLE' });
    } finally {
      running.deployment.redis.thaw();
    }
    expect(await settledOffer(aliceSocket, bob)).toMatchObject({
      type: 'error',
      code: 'CALL_REFUSED',
    });
    expect(bobSocket.ofType('call.offer')).toEqual([]);
  });
});
