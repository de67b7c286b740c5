/**
 * Channel posts as deployed: one api process (REST, store) and two ws pods on one real Redis,
 * with real WebSocket clients. A post is stored once and published once on the channel's
 * topic; each ws pod with a follower subscribes to the topic once and hands the post to each
 * follower connected to it, once. A subscriber that reconnects to the other pod catches up with
 * exactly the posts it missed. When Redis loses the follow mirror, it is rebuilt from the store
 * and new connections receive posts again.
 */
import { clusterForThisFile } from '../support/cluster-for-tests.js';
import type { RealtimeClient } from '../support/realtime-client.js';
import { expectOk, sleep } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import {
  adminConnection,
  deleteKeys,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

await withRedis((redisUrl) => {
  const { prefix, apiPod, api, ws1, ws2, connect } = clusterForThisFile(redisUrl, 'channels');
  let owner: SignedIn;
  let readers: SignedIn[];
  let counter = 0;

  beforeAll(async () => {
    const users = await Promise.all([1, 2, 3, 4].map(() => signIn(apiPod.baseUrl)));
    owner = users[0]!;
    readers = users.slice(1);
  });

  const publish = async (channelId: string) =>
    expectOk(
      await api.post(
        `/api/v1/channels/${channelId}/posts`,
        {
          client_message_id: `c-${++counter}`,
          ciphertext: Buffer.from(`post ${counter}`).toString('base64'),
        },
        bearer(owner),
      ),
    ).chat_message;
  const postsOf = (client: RealtimeClient, channelId: string) =>
    client
      .ofType('channel.post')
      .filter((frame) => frame.channel_id === channelId)
      .map((frame) => frame.sequence as number);
  const topicSubscribers = async (channelId: string) => {
    const admin = await adminConnection(redisUrl);
    try {
      return (
        (await admin.pubsub('NUMSUB', `${prefix}{chan:${channelId}}:topic`)) as [string, number]
      )[1];
    } finally {
      admin.disconnect();
    }
  };
  const newChannel = async () => {
    const id = expectOk(
      await api.post('/api/v1/channels', { name: 'cluster news', is_public: true }, bearer(owner)),
    ).channel.id as string;
    for (const reader of readers)
      expectOk(await api.post(`/api/v1/channels/${id}/subscribe`, {}, bearer(reader)));
    return id;
  };

  it('delivers a post once to each subscriber on both ws pods, through one topic subscription per pod', async () => {
    const channelId = await newChannel();
    const [a, b, c] = readers as [SignedIn, SignedIn, SignedIn];
    const devices = [
      await connect(a, ws1),
      await connect(b, ws2),
      await connect(c, ws1),
      await connect(c, ws2),
    ];
    expect(await topicSubscribers(channelId)).toBe(2);
    const post = await publish(channelId);
    for (const device of devices)
      expect(
        (await device.next('channel.post', (frame) => frame.channel_id === channelId)).data.post,
      ).toMatchObject({ id: post.id, sequence: 1 });
    await sleep(300);
    for (const device of devices) expect(postsOf(device, channelId)).toEqual([1]);
  });

  it('a subscriber reconnecting to the other pod catches up exactly what it missed', async () => {
    const channelId = await newChannel();
    const reader = readers[0]!;
    const first = await connect(reader, ws1);
    await publish(channelId);
    await first.next('channel.post', (frame) => frame.channel_id === channelId);
    const lastSeen = Math.max(...postsOf(first, channelId));
    first.close();
    await first.waitClosed();
    const missed = [
      await publish(channelId),
      await publish(channelId),
      await publish(channelId),
    ].map((post) => post.sequence);
    const back = await connect(reader, ws2);
    expect(
      (await back.request({ type: 'channels.resume', positions: { [channelId]: lastSeen } })).type,
    ).toBe('ack');
    expect(postsOf(back, channelId)).toEqual(missed);
    const next = await publish(channelId);
    await back.next('channel.post', (frame) => frame.sequence === next.sequence);
    expect(postsOf(back, channelId)).toEqual([...missed, next.sequence]);
  });

  it('rebuilds the follow mirror from the store after Redis lost it', async () => {
    const channelId = await newChannel();
    await deleteKeys(redisUrl, prefix);
    const reader = readers[1]!;
    const deadline = Date.now() + 15_000;
    // Until the keeper has rebuilt the mirrors, sockets are refused (4503: sessions cannot be checked).
    let device: RealtimeClient | undefined;
    while (!device) {
      device = await connect(reader, ws2).catch(() => undefined);
      if (Date.now() > deadline) throw new Error('no connection after the mirror was lost');
      if (!device) await sleep(250);
    }
    while (postsOf(device, channelId).length === 0) {
      if (Date.now() > deadline) throw new Error('no post after the mirror was lost');
      await publish(channelId);
      await sleep(250);
    }
    expect(postsOf(device, channelId).length).toBeGreaterThan(0);
  });
});
