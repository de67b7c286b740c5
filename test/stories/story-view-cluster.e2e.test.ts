/**
 * A story view as deployed: one api process and two ws pods on one real Redis. The owner's
 * device on one pod and its other device on the other pod both hear of a view recorded through
 * the api process, once; an owner that reconnects after missing a view gets it replayed.
 */
import { clusterForThisFile } from '../support/cluster-for-tests.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectOk, signInAgain, sleep } from '../support/session-api.js';
import { bearer, signIn, TestUser } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { withRedis } from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const { apiPod, api, ws1, ws2, connect } = clusterForThisFile(redisUrl, 'stories');
  const story = async (owner: SignedIn) =>
    expectOk(
      await api.post(
        '/api/v1/stories',
        { ciphertext: Buffer.from('cluster story').toString('base64'), audience: 'everyone' },
        bearer(owner),
      ),
    ).story.id as string;

  it('notifies the owner on the other ws pod, on each of its devices, once per viewer', async () => {
    const ownerUser = new TestUser();
    const owner = await signIn(apiPod.baseUrl, ownerUser);
    const ownerSecondDevice = await signInAgain(apiPod.baseUrl, ownerUser);
    const [viewer, other] = await Promise.all([signIn(apiPod.baseUrl), signIn(apiPod.baseUrl)]);
    const devices = [await connect(owner, ws2), await connect(ownerSecondDevice, ws1)];
    await connect(viewer, ws1);
    const storyId = await story(owner);
    expectOk(await api.post(`/api/v1/stories/${storyId}/view`, {}, bearer(viewer)));
    expectOk(await api.post(`/api/v1/stories/${storyId}/view`, {}, bearer(viewer)));
    expectOk(await api.post(`/api/v1/stories/${storyId}/view`, {}, bearer(other)));
    for (const device of devices) {
      await device.next(
        'story.viewed',
        (frame) => frame.data.viewer_address === other.user.address.toLowerCase(),
      );
    }
    await sleep(300);
    for (const device of devices) {
      expect(
        device
          .ofType('story.viewed')
          .map((frame) => [frame.data.story_id, frame.data.viewer_address, frame.data.view_count]),
      ).toEqual([
        [storyId, viewer.user.address.toLowerCase(), 1],
        [storyId, other.user.address.toLowerCase(), 2],
      ]);
    }
  });

  it('replays a view the owner missed while offline when it reconnects to the other pod', async () => {
    const [owner, viewer] = await Promise.all([signIn(apiPod.baseUrl), signIn(apiPod.baseUrl)]);
    const first = await connect(owner, ws1);
    const storyId = await story(owner);
    const missedFrom = first.position;
    first.close();
    await first.waitClosed();
    expectOk(await api.post(`/api/v1/stories/${storyId}/view`, {}, bearer(viewer)));
    const back = await RealtimeClient.connect(
      apiPod.baseUrl,
      ws2.baseUrl,
      owner.accessToken,
      missedFrom,
    );
    try {
      const frame = await back.next('story.viewed', (each) => each.data.story_id === storyId);
      expect(frame.data.viewer_address).toBe(viewer.user.address.toLowerCase());
    } finally {
      back.close();
    }
  });
});
