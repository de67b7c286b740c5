/**
 * Group messages on both deployment shapes (one process; one api and two ws processes on a
 * real Redis): three members with two devices each, the devices of each member on different
 * ws pods, exchange messages and every device receives every message exactly once; a removed
 * or departed member's devices hear of their departure and then receive nothing more of the
 * group, on every pod, while the rest of their stream keeps flowing.
 */
import {
  DEPLOYMENTS_AND_REDIS_CLUSTER,
  deploymentForThisBlock,
} from '../support/private-deployment.js';
import type { Frame, RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk, signInAgain, sleep } from '../support/session-api.js';
import { bearer, signIn, TestUser } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { GroupCalls, addressOf, b64, newMessageId } from './group-support.js';

interface Member {
  readonly session: SignedIn;
  /** One device per ws pod (two on the single process), each its own session. */
  readonly devices: RealtimeClient[];
}

const isUserMessage = (frame: Frame) => frame.data.message.kind !== 'system';
const systemEvents = (device: RealtimeClient) =>
  device
    .ofType('message.new')
    .filter((frame) => !isUserMessage(frame))
    .map((frame) => frame.data.message.system_event);

describe.each(DEPLOYMENTS_AND_REDIS_CLUSTER)('on a %s', (shape) => {
  const running = deploymentForThisBlock(shape);
  const groups = new GroupCalls(() => running.api);

  /** A user with two devices (two sessions), spread over the ws pods. */
  async function member(): Promise<Member> {
    const user = new TestUser();
    const session = await signIn(running.deployment.apiUrl, user);
    const second = await signInAgain(running.deployment.apiUrl, user);
    const [firstPod, secondPod] = [
      running.deployment.wsUrls[0]!,
      running.deployment.wsUrls[running.deployment.wsUrls.length - 1]!,
    ];
    const devices = await Promise.all([
      running.connect(session.accessToken, firstPod),
      running.connect(second.accessToken, secondPod),
    ]);
    return { session, devices };
  }

  it('three members exchange messages and each device receives each message exactly once', async () => {
    const [alice, bob, carol] = await Promise.all([member(), member(), member()]);
    const groupId = await groups.create(alice.session, [bob.session, carol.session]);
    const sent: string[] = [];
    for (const from of [alice, bob, carol, alice, bob, carol]) {
      const reply = expectOk(
        await groups.send(from.session, groupId, `from ${addressOf(from.session)}`),
      );
      expect(reply.chat_message).toMatchObject({
        group_id: groupId,
        conversation_id: `group:${groupId}`,
        sender_address: addressOf(from.session),
      });
      sent.push(reply.chat_message.id);
    }
    const sequences = expectOk(await groups.history(bob.session, groupId))
      .messages.filter((message: { kind: string }) => message.kind !== 'system')
      .map((message: { sequence: number }) => message.sequence);
    expect(sequences).toEqual([2, 3, 4, 5, 6, 7]);
    for (const device of [alice, bob, carol].flatMap((each) => each.devices)) {
      await device.next('message.new', isUserMessage, 5000, sent.length);
    }
    await sleep(300);
    for (const device of [alice, bob, carol].flatMap((each) => each.devices)) {
      expect(
        device
          .ofType('message.new')
          .filter(isUserMessage)
          .map((frame) => frame.data.message.id),
      ).toEqual(sent);
      expect(systemEvents(device)).toEqual(['group_created']);
    }
  });

  it('removal and leaving stop delivery at once on every pod', async () => {
    const [alice, bob, carol, dave] = await Promise.all([member(), member(), member(), member()]);
    const groupId = await groups.create(alice.session, [bob.session, carol.session, dave.session]);
    expectOk(await groups.remove(alice.session, groupId, addressOf(carol.session)));
    expectOk(await groups.leave(dave.session, groupId));
    const after = expectOk(await groups.send(bob.session, groupId, 'after the departures'))
      .chat_message.id;
    // A direct message sent after the group message: once a departed device has it, the group
    // message (earlier in the same per-user stream) would have arrived before it.
    for (const departed of [carol, dave]) {
      const direct = expectOk(
        await running.api.post(
          '/api/v1/send',
          {
            client_message_id: newMessageId(),
            recipient_address: departed.session.user.address,
            ciphertext: b64('still reachable'),
          },
          bearer(alice.session),
        ),
      ).chat_message.id;
      for (const device of departed.devices) {
        await device.next('message.new', (frame) => frame.data.message.id === direct);
        expect(device.ofType('message.new').map((frame) => frame.data.message.id)).not.toContain(
          after,
        );
      }
    }
    for (const device of carol.devices)
      expect(systemEvents(device)).toEqual(['group_created', 'member_removed']);
    for (const device of dave.devices)
      expect(systemEvents(device)).toEqual(['group_created', 'member_removed', 'member_left']);
    for (const device of [...alice.devices, ...bob.devices]) {
      await device.next('message.new', (frame) => frame.data.message.id === after);
      expect(systemEvents(device)).toEqual(['group_created', 'member_removed', 'member_left']);
    }
    for (const departed of [carol, dave]) {
      expectFailure(await groups.history(departed.session, groupId), 404, 'NOT_FOUND');
      expectFailure(await groups.send(departed.session, groupId, 'let me back'), 404, 'NOT_FOUND');
    }
  });
});
