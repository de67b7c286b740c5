/**
 * An event published while a ws pod was cut off from Redis never reaches that pod's
 * subscription (pub/sub delivers at most once). The pod's open sockets must not stay silent
 * about it until some later event reveals the jump: once its subscription is back, each socket
 * of the user catches up from the log (client-connection.ts `catchUp`), and each socket that
 * follows a channel catches up on its posts (channel-feed.ts `catchUp`). The soak's silent miss
 * (docs/reliability.md): a conversation's last message, published while the recipient's pod
 * was cut off, was never handed to the device and no resync told it.
 *
 * The cluster of one api and two ws processes on a Redis of its own; ws pod 0 reaches Redis
 * through a TCP proxy, so that it alone is cut off while the message is sent: deterministically,
 * the publish happens while that pod has no subscriber connection at all.
 */
import { clusterWithCuttableWsPod } from '../support/cuttable-ws-pod.js';
import { eventually } from '../support/private-deployment.js';
import type { RealtimeClient } from '../support/realtime-client.js';
import { expectOk, sleep } from '../support/session-api.js';
import { bearer } from '../support/wallet.js';

const { running, podZeroLink } = clusterWithCuttableWsPod();

it('a message published while the recipient’s ws pod was cut off from Redis reaches its open socket once the pod is back, with no later event', async () => {
  const { deployment } = running;
  const [sender, reader] = [await deployment.signIn(), await deployment.signIn()];
  const socket = await running.connect(reader.accessToken, deployment.wsUrls[0]!);

  podZeroLink().cut();
  const sent = expectOk(
    await deployment.http.post(
      '/api/v1/send',
      {
        client_message_id: `cut-${Date.now()}`,
        recipient_address: reader.user.address,
        ciphertext: Buffer.from('sent into the cut').toString('base64'),
      },
      bearer(sender),
    ),
  ).chat_message;
  // Published (the api reaches Redis) while the pod cannot hear it.
  await sleep(500);
  expect(socket.ofType('message.new')).toEqual([]);
  podZeroLink().restore();

  // Nothing else is sent: only the pod's catch-up can tell the socket. It reads the log, so the
  // message itself comes; were the pod's command connection to Redis not back yet, the
  // documented resync_required (reason `unavailable`) would come instead: never silence.
  const told = await eventually(
    async () =>
      socket.frames.find(
        (frame) =>
          (frame.type === 'message.new' && frame.data.message.id === sent.id) ||
          frame.type === 'resync_required',
      ),
    15_000,
    'the message, or a resync_required',
  );
  if (told.type === 'message.new') expect(told.seq).toBe(Number(socket.hello.seq) + 1);
  else expect(told).toMatchObject({ type: 'resync_required', reason: 'unavailable' });
  expect(socket.closeCode).toBeUndefined();
}, 60_000);

it('a channel post published while a follower’s ws pod was cut off from Redis reaches its open sockets once the pod is back, with no later post', async () => {
  const { deployment } = running;
  const [owner, reader] = [await deployment.signIn(), await deployment.signIn()];
  const channelId = expectOk(
    await deployment.http.post(
      '/api/v1/channels',
      { name: 'cut news', is_public: true },
      bearer(owner),
    ),
  ).channel.id as string;
  expectOk(
    await deployment.http.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(reader)),
  );
  let posted = 0;
  const post = async (text: string) =>
    expectOk(
      await deployment.http.post(
        `/api/v1/channels/${channelId}/posts`,
        {
          client_message_id: `cut-post-${++posted}`,
          ciphertext: Buffer.from(text).toString('base64'),
        },
        bearer(owner),
      ),
    ).chat_message;
  const postsOf = (socket: RealtimeClient) =>
    socket
      .ofType('channel.post')
      .filter((frame) => frame.channel_id === channelId)
      .map((frame) => frame.sequence);

  // One socket that was sent the channel's first post live, one opened after it (sent none).
  const sawFirst = await running.connect(reader.accessToken, deployment.wsUrls[0]!);
  const first = await post('before the cut');
  await sawFirst.next('channel.post', (frame) => frame.channel_id === channelId);
  const sawNone = await running.connect(reader.accessToken, deployment.wsUrls[0]!);

  podZeroLink().cut();
  const missed = await post('posted into the cut');
  expect(missed.sequence).toBe(first.sequence + 1);
  // Published (the api reaches Redis) while the pod cannot hear it.
  await sleep(500);
  expect(postsOf(sawFirst)).toEqual([first.sequence]);
  expect(postsOf(sawNone)).toEqual([]);
  podZeroLink().restore();

  // Nothing else is posted: only the pod's catch-up can tell the sockets. It reads the kept
  // posts, so the post itself comes; were the pod's command connection to Redis not back yet,
  // a channel.resync_required (reason `unavailable`) would come instead: never silence.
  for (const socket of [sawFirst, sawNone]) {
    const told = await eventually(
      async () =>
        socket.frames.find(
          (frame) =>
            (frame.type === 'channel.post' && frame.sequence === missed.sequence) ||
            frame.type === 'channel.resync_required',
        ),
      15_000,
      'the missed post, or a channel.resync_required',
    );
    if (told.type === 'channel.post') expect(told.data.post.id).toBe(missed.id);
    else expect(told).toMatchObject({ channel_id: channelId, reason: 'unavailable' });
    expect(socket.closeCode).toBeUndefined();
  }
  // Each post once: the catch-up repeats nothing the sockets were sent.
  await sleep(300);
  for (const socket of [sawFirst, sawNone])
    expect(new Set(postsOf(socket)).size).toBe(postsOf(socket).length);
}, 60_000);
