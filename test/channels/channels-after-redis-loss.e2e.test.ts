/**
 * Channel posts whatever happens to Redis: after Redis restarted empty, a connected subscriber
 * keeps receiving new posts (the pods resubscribe to the channel topics, and the follow mirror
 * is rebuilt from the store), and a client resuming over posts Redis lost is told
 * `channel.resync_required` and re-reads them over REST, where every post is. Run on one process
 * and on the cluster of one api and two ws processes, each with its own Redis.
 */
import { expectOk } from '../support/session-api.js';
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
  eventually,
} from '../support/private-deployment.js';
import type { RealtimeClient } from '../support/realtime-client.js';
import { bearer, signIn } from '../support/wallet.js';

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s with its own Redis', (shape) => {
  const running = deploymentForThisBlock(shape);

  it('Redis restarted empty: live posts go on, lost ones are re-read over REST', async () => {
    const { deployment, api } = running;
    const [owner, reader] = [await signIn(deployment.apiUrl), await signIn(deployment.apiUrl)];
    const channelId = expectOk(
      await api.post('/api/v1/channels', { name: 'resilient', is_public: true }, bearer(owner)),
    ).channel.id as string;
    expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(reader)));
    let counter = 0;
    /** The post's sequence; undefined while the api answers 503 (Redis coming back). */
    const publish = async (): Promise<number | undefined> => {
      const reply = await api.post(
        `/api/v1/channels/${channelId}/posts`,
        {
          client_message_id: `r-${++counter}`,
          ciphertext: Buffer.from(`post ${counter}`).toString('base64'),
        },
        bearer(owner),
      );
      if (reply.status === 503) return undefined;
      return expectOk(reply).chat_message.sequence as number;
    };
    const postsOf = (socket: RealtimeClient) =>
      socket.ofType('channel.post').map((frame) => frame.sequence as number);

    const socket = await running.connect(reader.accessToken, deployment.wsUrls.at(-1)!);
    await publish();
    await socket.next('channel.post');
    await deployment.redis.restartEmpty();

    const arrived = await eventually(
      async () => {
        const sequence = await publish();
        if (sequence === undefined) return undefined;
        await new Promise((resolve) => setTimeout(resolve, 200));
        return postsOf(socket).includes(sequence) ? sequence : undefined;
      },
      20_000,
      'a post reaching the connected subscriber after the Redis restart',
    );
    const delivered = postsOf(socket);
    expect(new Set(delivered).size).toBe(delivered.length);

    const back = await eventually(
      () => running.connect(reader.accessToken, deployment.wsUrls[0]!).catch(() => undefined),
      20_000,
      'a new connection',
    );
    expect(
      (await back.request({ type: 'channels.resume', positions: { [channelId]: 0 } })).type,
    ).toBe('ack');
    expect(await back.next('channel.resync_required')).toMatchObject({
      channel_id: channelId,
      sequence: arrived,
    });
    const stored = expectOk(
      await api.get(`/api/v1/channels/${channelId}/posts?page_size=200`, bearer(reader)),
    ).posts.map((post: { sequence: number }) => post.sequence);
    expect(stored).toEqual(Array.from({ length: arrived }, (_, i) => arrived - i));
  });
});
