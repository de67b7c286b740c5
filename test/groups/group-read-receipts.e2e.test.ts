/**
 * Read receipts in a group, over real HTTP and real WebSocket clients on the single process:
 * when a member's read marker moves, the members who sent the messages it newly covers get a
 * `message.read` naming the reader and the conversation (the reader's own devices too), as a
 * direct chat's peer does; a member who sent none of them hears nothing, a sender the reader has
 * blocked hears nothing (as in direct chats), and neither does a sender who has left the group.
 */
import { expectOk, sleep } from '../support/session-api.js';
import type { Frame } from '../support/realtime-client.js';
import { realtimeClientsForThisFile, type RealtimeClient } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { GroupCalls, addressOf } from './group-support.js';

const { service, api } = serviceForThisFile();
const groups = new GroupCalls(() => api);
const connect = realtimeClientsForThisFile(service);

const users = (count: number) =>
  Promise.all(Array.from({ length: count }, () => signIn(service.baseUrl)));
const sent = async (from: SignedIn, groupId: string, text: string) =>
  expectOk(await groups.send(from, groupId, text)).chat_message as { id: string; sequence: number };
const markRead = async (reader: SignedIn, groupId: string, upToMessageId: string) =>
  expectOk(
    await api.post(
      '/api/v1/mark-as-read',
      { group_id: groupId, up_to_message_id: upToMessageId },
      bearer(reader),
    ),
  );
const readsOf = (socket: RealtimeClient, conversationId: string): Frame[] =>
  socket.ofType('message.read').filter((frame) => frame.data.conversation_id === conversationId);
const conversationOf = async (viewer: SignedIn, groupId: string) =>
  expectOk(await api.get('/api/v1/chats', bearer(viewer))).chats.find(
    (chat: { group_id: string }) => chat.group_id === groupId,
  ).conversation_id as string;

it('the sender of a newly read message gets the reader’s marker; a member who sent none of them does not', async () => {
  const [owner, bob, carol] = (await users(3)) as [SignedIn, SignedIn, SignedIn];
  const groupId = await groups.create(owner, [bob, carol]);
  const conversationId = await conversationOf(owner, groupId);
  const [ownersSocket, bobsSocket, carolsSocket] = [
    await connect(owner),
    await connect(bob),
    await connect(carol),
  ];
  await sent(owner, groupId, 'first');
  const second = await sent(owner, groupId, 'second');

  await markRead(bob, groupId, second.id);
  const expected = {
    conversation_id: conversationId,
    reader_address: addressOf(bob),
    up_to_message_id: second.id,
    up_to_sequence: second.sequence,
  };
  expect((await ownersSocket.next('message.read')).data).toMatchObject(expected);
  expect((await bobsSocket.next('message.read')).data).toMatchObject(expected);

  // Carol's message is the only one Bob's next read covers: she hears of it, the owner does not.
  const carols = await sent(carol, groupId, 'third');
  await markRead(bob, groupId, carols.id);
  expect((await carolsSocket.next('message.read')).data).toMatchObject({
    conversation_id: conversationId,
    reader_address: addressOf(bob),
    up_to_message_id: carols.id,
  });
  await bobsSocket.next('message.read', (frame) => frame.data.up_to_message_id === carols.id);
  await sleep(300);
  expect(readsOf(carolsSocket, conversationId)).toHaveLength(1);
  expect(readsOf(ownersSocket, conversationId).map((frame) => frame.data.up_to_message_id)).toEqual(
    [second.id],
  );

  // A marker that does not move tells nobody.
  await markRead(bob, groupId, second.id);
  await sleep(300);
  expect(readsOf(ownersSocket, conversationId)).toHaveLength(1);
  expect(readsOf(bobsSocket, conversationId)).toHaveLength(2);
});

it('a sender the reader has blocked, and a sender who has left the group, get no marker', async () => {
  const [owner, reader, blocked, leaver] = (await users(4)) as [
    SignedIn,
    SignedIn,
    SignedIn,
    SignedIn,
  ];
  const groupId = await groups.create(owner, [reader, blocked, leaver]);
  const conversationId = await conversationOf(owner, groupId);
  expectOk(
    await api.post('/api/v1/block-contact', { address: blocked.user.address }, bearer(reader)),
  );
  const [ownersSocket, blockedsSocket, leaversSocket] = [
    await connect(owner),
    await connect(blocked),
    await connect(leaver),
  ];
  await sent(blocked, groupId, 'from the blocked');
  await sent(leaver, groupId, 'from the leaver');
  expectOk(await groups.leave(leaver, groupId));
  const last = await sent(owner, groupId, 'from the owner');

  await markRead(reader, groupId, last.id);
  // The owner's receipt comes; the others', were they sent, would be published with it.
  expect((await ownersSocket.next('message.read')).data).toMatchObject({
    conversation_id: conversationId,
    reader_address: addressOf(reader),
  });
  await sleep(500);
  expect(readsOf(blockedsSocket, conversationId)).toEqual([]);
  expect(readsOf(leaversSocket, conversationId)).toEqual([]);
});
