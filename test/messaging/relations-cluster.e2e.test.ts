/**
 * Relations on both deployment shapes on a real Redis (one process; one api and two ws
 * processes; the same on a Redis Cluster): an edit, a reaction, a pin and a deletion for
 * everyone reach the other participant's device and the actor's other device on another ws
 * pod; a device replaying the stream from its start gets the deleted message's events
 * rewritten to the tombstone (the replay log lives in Redis); and a channel post deleted by an
 * admin comes back through `channels.resume` only as its tombstone.
 */
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
} from '../support/private-deployment.js';
import type { Frame } from '../support/realtime-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectOk, signInAgain } from '../support/session-api.js';
import { bearer } from '../support/wallet.js';
import { RelationCalls, b64, newClientId } from './relations-support.js';

const about = (messageId: string) => (frame: Frame) =>
  (frame.data?.message?.id ?? frame.data?.message_id) === messageId;

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s', (shape) => {
  const running = deploymentForThisBlock(shape, { RATE_LIMITS_ENABLED: 'false' });
  const calls = new RelationCalls(() => running.api);

  it('changes reach the devices on every pod; replay from Redis hands back only the tombstone', async () => {
    const { deployment } = running;
    const [firstPod, lastPod] = [deployment.wsUrls[0]!, deployment.wsUrls.at(-1)!];
    const alice = await deployment.signIn();
    const bob = await deployment.signIn();
    const aliceOther = await signInAgain(deployment.apiUrl, alice.user);
    const bobDevice = await running.connect(bob.accessToken, firstPod);
    const aliceDevice = await running.connect(aliceOther.accessToken, lastPod);
    const withBob = { peer_address: bob.user.address };
    const withAlice = { peer_address: alice.user.address };
    const sent = await calls.sent(alice, withBob, 'CLUSTER-SECRET');
    expectOk(await calls.edit(alice, withBob, sent.id, 'CLUSTER-EDITED'));
    expectOk(await calls.react(bob, withAlice, sent.id, { ciphertext: b64('👍') }));
    expectOk(await calls.pin(alice, withBob, sent.id));
    expectOk(await calls.deleteForEveryone(alice, withBob, sent.id));
    for (const device of [bobDevice, aliceDevice]) {
      await device.next('message.deleted', about(sent.id));
      expect(device.frames.filter(about(sent.id)).map((frame) => frame.type)).toEqual([
        'message.new',
        'message.edited',
        'message.reaction',
        'message.pinned',
        'message.deleted',
      ]);
    }
    const replaying = await RealtimeClient.connect(deployment.apiUrl, lastPod, bob.accessToken, {
      stream: '',
      seq: 0,
    });
    try {
      await replaying.next('message.deleted', about(sent.id));
      const replayed = replaying.frames.filter(about(sent.id));
      expect(replayed.map((frame) => frame.type)).toEqual([
        'message.new',
        'message.edited',
        'message.reaction',
        'message.pinned',
        'message.deleted',
      ]);
      expect(JSON.stringify(replayed)).not.toContain(b64('CLUSTER-SECRET'));
      expect(JSON.stringify(replayed)).not.toContain(b64('CLUSTER-EDITED'));
    } finally {
      replaying.close();
    }
  });

  it('a deleted channel post comes back through channels.resume only as its tombstone', async () => {
    const { deployment } = running;
    const owner = await deployment.signIn();
    const follower = await deployment.signIn();
    const channelId = expectOk(
      await running.api.post('/api/v1/channels', { name: 'c', is_public: true }, bearer(owner)),
    ).channel.id;
    expectOk(
      await running.api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(follower)),
    );
    const post = expectOk(
      await running.api.post(
        `/api/v1/channels/${channelId}/posts`,
        { client_message_id: newClientId(), ciphertext: b64('POST-SECRET') },
        bearer(owner),
      ),
    ).chat_message;
    expectOk(await calls.deleteForEveryone(owner, { channel_id: channelId }, post.id));
    const device = await running.connect(follower.accessToken, deployment.wsUrls.at(-1)!);
    const answer = await device.request({ type: 'channels.resume', positions: { [channelId]: 0 } });
    expect(answer.type).toBe('ack');
    const replayed = device.ofType('channel.post').find((frame) => frame.data.post.id === post.id)!;
    expect(replayed.data.post).toMatchObject({ ciphertext: '', deleted_by: 'sender' });
    expect(JSON.stringify(device.frames)).not.toContain(b64('POST-SECRET'));
  });
});
