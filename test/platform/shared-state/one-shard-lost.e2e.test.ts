/**
 * One shard of a Redis Cluster restarts empty (`cluster on Redis Cluster`: an api pod and two ws
 * pods on a private three-master cluster). Only the mirror buckets of that shard lose their
 * completeness markers and their marks; lookups routed there answer "cannot vouch" until the api
 * pod's mirror keeper has rebuilt them from the store, so an ended session never opens `/ws` and
 * a block never lets a call through, while sessions on the other shards are not disturbed. No
 * process restarts.
 */
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { shardBucketOf, shardBucketTag } from '../../../src/platform/shared-state/shard-buckets.js';
import { deploymentForThisBlock, eventually } from '../../support/private-deployment.js';
import type { RealtimeClient } from '../../support/realtime-client.js';
import {
  expectAccessAccepted,
  expectAccessRefused,
  expectOk,
  signInAgain,
} from '../../support/session-api.js';
import { connectWs } from '../../support/session-ws.js';
import type { WsOutcome } from '../../support/session-ws.js';
import { TestUser, bearer, signIn } from '../../support/wallet.js';
import type { SignedIn } from '../../support/wallet.js';

const running = deploymentForThisBlock('cluster on Redis Cluster');

const closeCodeOf = (outcome: WsOutcome) =>
  'closeCode' in outcome ? outcome.closeCode : outcome.opened ? 'opened' : outcome.status;

/** Every ws pod, until none says 4503 any more; the answers meanwhile are all 4503. */
const settledOutcomes = (session: SignedIn) =>
  Promise.all(
    running.deployment.wsUrls.map((wsUrl) =>
      eventually(
        async () => {
          const code = closeCodeOf(
            await connectWs(wsUrl, { protocols: ['bearer', session.accessToken] }),
          );
          return code === 4503 ? undefined : code;
        },
        20_000,
        'the rebuild of the lost shard',
      ),
    ),
  );

/** The index (in `ports`) of the master serving the shard bucket of `routingId`. */
async function masterOf(routingId: string): Promise<number> {
  const cluster = running.deployment.redisCluster!;
  const admin = new Redis(cluster.ports[0]!, '127.0.0.1');
  try {
    const slot = calculateSlot(shardBucketTag(shardBucketOf(routingId)));
    const [, , master] = (await admin.cluster('SLOTS')).find(
      ([start, end]) => start <= slot && slot <= end,
    )!;
    return cluster.ports.indexOf(master![1]);
  } finally {
    admin.disconnect();
  }
}

it('an ended session stays refused and a block holds across the loss of their shard; a live session works again', async () => {
  const { deployment, api } = running;
  const user = new TestUser();
  const ended = await signIn(deployment.apiUrl, user);
  const live = await signInAgain(deployment.apiUrl, user);
  expectOk(await api.post('/api/v1/logout', {}, bearer(ended)));
  const lost = await masterOf(ended.sessionId);

  const [alice, bob] = [await signIn(deployment.apiUrl), await signIn(deployment.apiUrl)];
  expectOk(await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(bob)));
  const aliceSocket: RealtimeClient = await running.connect(
    alice.accessToken,
    deployment.wsUrls[0]!,
  );

  await deployment.redisCluster!.restartNodeEmpty(lost);

  expect(await settledOutcomes(ended)).toEqual(deployment.wsUrls.map(() => 4401));
  expect(await settledOutcomes(live)).toEqual(deployment.wsUrls.map(() => 'opened'));
  await expectAccessRefused(api, ended.accessToken);
  await expectAccessAccepted(api, live.accessToken);
  let calls = 0;
  const offered = await eventually(
    async () => {
      const answer = await aliceSocket.request({
        type: 'call.offer',
        call_id: `after-${++calls}`,
        to: bob.user.address,
        sdp: 'v=0',
      });
      return answer.type === 'error' && answer.code === 'UNAVAILABLE' ? undefined : answer;
    },
    20_000,
    'the rebuild of the block mirror',
  );
  expect(offered).toMatchObject({ type: 'error', code: 'CALL_REFUSED' });
});
