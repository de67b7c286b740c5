/**
 * Relations in a group of 100 members created over the API, end to end over real HTTP and real
 * WebSocket clients: an author's edit and an admin's deletion reach every member's device that
 * is connected (and only members'), encrypted reactions and pins are told to all, the pin rule
 * follows the group's `members_can_pin` setting, mentions count as unread mentions in the chat
 * list until read and `@everyone` is for owners and admins; a member's device that was away
 * replays what it missed, and the history shows the current state. Every refusal answers its
 * documented status and code.
 */
import type { Json } from '../support/json.js';
import { RealtimeClient } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { RelationCalls, addressOf, b64, text } from '../messaging/relations-support.js';
import type { Where } from '../messaging/relations-support.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const calls = new RelationCalls(() => api);

const MEMBERS = 100;
let owner: SignedIn;
let admin: SignedIn;
let author: SignedIn;
let reader: SignedIn;
let outsider: SignedIn;
let everyone: SignedIn[];
let group: Where;
/** Connected devices: the owner's, the admin's, the reader's, 20 other members' and an outsider's. */
let devices: Map<string, RealtimeClient>;
let others: RealtimeClient[];

const connect = (session: SignedIn, resume?: { stream: string; seq: number }) =>
  RealtimeClient.connect(service.baseUrl, service.baseUrl, session.accessToken, resume);
const about = (messageId: string) => (frame: Frame) =>
  (frame.data?.message?.id ?? frame.data?.message_id) === messageId;
const device = (session: SignedIn) => devices.get(addressOf(session))!;

async function signInMany(count: number): Promise<SignedIn[]> {
  const sessions: SignedIn[] = [];
  while (sessions.length < count)
    sessions.push(
      ...(await Promise.all(
        Array.from({ length: Math.min(20, count - sessions.length) }, () =>
          signIn(service.baseUrl),
        ),
      )),
    );
  return sessions;
}

beforeAll(async () => {
  everyone = await signInMany(MEMBERS + 1);
  outsider = everyone.pop()!;
  [owner, admin, author, reader] = everyone as [SignedIn, SignedIn, SignedIn, SignedIn];
  const created = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'Hundred', member_addresses: everyone.slice(1).map((m) => m.user.address) },
      bearer(owner),
    ),
  ).group;
  expect(created.member_count).toBe(MEMBERS);
  group = { group_id: created.id };
  expectOk(
    await api.post(
      `/api/v1/groups/${created.id}/members/${admin.user.address}/promote`,
      {},
      bearer(owner),
    ),
  );
  const watched = [owner, admin, author, reader, outsider, ...everyone.slice(4, 24)];
  const clients = await Promise.all(watched.map((session) => connect(session)));
  devices = new Map(watched.map((session, i) => [addressOf(session), clients[i]!]));
  others = clients.slice(5);
}, 60_000);
afterAll(() => [...devices.values()].forEach((client) => client.close()));

const members = () => [device(owner), device(admin), device(reader), ...others];

it('the author edits: every connected member hears it once, the outsider nothing', async () => {
  const sent = await calls.sent(author, group, 'draft');
  const edited = expectOk(await calls.edit(author, group, sent.id, 'final')).chat_message;
  expect(edited).toMatchObject({ id: sent.id, sequence: sent.sequence, edit_count: 1 });
  for (const client of [...members(), device(author)]) {
    const frame = await client.next('message.edited', about(sent.id));
    expect(text(frame.data.message.ciphertext)).toBe('final');
  }
  expect(device(outsider).frames.filter(about(sent.id))).toEqual([]);
  expectFailure(await calls.edit(admin, group, sent.id, 'x'), 403, 'FORBIDDEN');
  expectFailure(await calls.edit(outsider, group, sent.id, 'x'), 404, 'NOT_FOUND');
  expect(text((await calls.byId(reader, group)).get(sent.id)!.ciphertext)).toBe('final');
});

it('admin delete: an admin deletes a member message at any time; a member may not delete another', async () => {
  const sent = await calls.sent(author, group, 'off topic');
  expectFailure(await calls.deleteForEveryone(reader, group, sent.id), 403, 'FORBIDDEN');
  expectFailure(await calls.deleteForEveryone(outsider, group, sent.id), 404, 'NOT_FOUND');
  const tombstone = expectOk(await calls.deleteForEveryone(admin, group, sent.id)).chat_message;
  expect(tombstone).toMatchObject({ ciphertext: '', deleted_by: 'admin' });
  for (const client of [...members(), device(author)]) {
    const frame = await client.next('message.deleted', about(sent.id));
    expect(frame.data).toMatchObject({ deleted_by: 'admin', message: { ciphertext: '' } });
  }
  expect((await calls.byId(reader, group)).get(sent.id)).toMatchObject({
    ciphertext: '',
    deleted_by: 'admin',
  });
  const own = await calls.sent(reader, group, 'mine to delete');
  expect(
    expectOk(await calls.deleteForEveryone(reader, group, own.id)).chat_message.deleted_by,
  ).toBe('sender');
});

it('encrypted reactions of several members reach everyone; history lists them oldest first', async () => {
  const sent = await calls.sent(author, group, 'vote with emoji');
  for (const member of [reader, admin, owner])
    expectOk(
      await calls.react(member, group, sent.id, { ciphertext: b64(`r-${addressOf(member)}`) }),
    );
  for (const client of members()) await client.next('message.reaction', about(sent.id), 5000, 3);
  const reactions = (await calls.byId(author, group)).get(sent.id)!.reactions as Json[];
  expect(reactions.map((each) => each.reactor_address)).toEqual(
    [reader, admin, owner].map(addressOf),
  );
  expectOk(await calls.unreact(admin, group, sent.id));
  expect(
    ((await calls.byId(author, group)).get(sent.id)!.reactions as Json[]).map(
      (r) => r.reactor_address,
    ),
  ).toEqual([reader, owner].map(addressOf));
  expectFailure(
    await calls.react(outsider, group, sent.id, { ciphertext: b64('x') }),
    404,
    'NOT_FOUND',
  );
});

it('pins: owner and admins; members only with members_can_pin; the setting is for owners and admins', async () => {
  const sent = await calls.sent(author, group, 'pin me');
  expectFailure(await calls.pin(reader, group, sent.id), 403, 'FORBIDDEN');
  expectOk(await calls.pin(admin, group, sent.id));
  for (const client of members()) await client.next('message.pinned', about(sent.id));
  expectOk(await calls.unpin(owner, group, sent.id));
  const settings = `/api/v1/groups/${(group as { group_id: string }).group_id}/settings`;
  expectFailure(
    await api.post(settings, { members_can_pin: true }, bearer(reader)),
    403,
    'FORBIDDEN',
  );
  expectFailure(
    await api.post(settings, { members_can_pin: true }, bearer(outsider)),
    404,
    'NOT_FOUND',
  );
  const updated = expectOk(await api.post(settings, { members_can_pin: true }, bearer(admin)));
  expect(updated.group).toMatchObject({ members_can_pin: true, my_role: 'admin' });
  expectOk(await calls.pin(reader, group, sent.id));
  expect(expectOk(await calls.pinned(author, group)).messages.map((m: Json) => m.id)).toEqual([
    sent.id,
  ]);
  expectOk(await api.post(settings, { members_can_pin: false }, bearer(owner)));
  expectFailure(await calls.unpin(reader, group, sent.id), 403, 'FORBIDDEN');
  expectFailure(await calls.pinned(outsider, group), 404, 'NOT_FOUND');
});

it('mentions: members only, @everyone for owners and admins; unread mentions until read', async () => {
  const chatOf = async (session: SignedIn) =>
    (expectOk(await api.get('/api/v1/chats', bearer(session))).chats as Json[]).find(
      (chat) => chat.group_id === (group as { group_id: string }).group_id,
    )!;
  const last = await calls.sent(owner, group, 'baseline');
  expectOk(
    await api.post('/api/v1/mark-as-read', { ...group, up_to_message_id: last.id }, bearer(reader)),
  );
  const mention = await calls.sent(author, group, 'hey @reader', {
    mentions: [reader.user.address],
  });
  expect(mention.mentions).toEqual([addressOf(reader)]);
  expect(
    (await device(reader).next('message.new', about(mention.id))).data.message.mentions,
  ).toEqual([addressOf(reader)]);
  expect((await chatOf(reader)).unread_mention_count).toBe(1);
  expect((await chatOf(admin)).unread_mention_count).toBe(0);
  expectFailure(
    await calls.send(author, group, 'x', { mentions: ['@everyone'] }),
    403,
    'FORBIDDEN',
  );
  expectFailure(
    await calls.send(author, group, 'x', { mentions: [outsider.user.address] }),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await calls.send(author, group, 'x', { mentions: ['bob'] }),
    400,
    'INVALID_ARGUMENT',
  );
  const all = await calls.sent(admin, group, 'all hands', { mentions: ['@everyone'] });
  expect((await chatOf(reader)).unread_mention_count).toBe(2);
  expect((await chatOf(everyone[50]!)).unread_mention_count).toBe(1);
  expect((await chatOf(admin)).unread_mention_count).toBe(0);
  expectOk(
    await api.post('/api/v1/mark-as-read', { ...group, up_to_message_id: all.id }, bearer(reader)),
  );
  expect((await chatOf(reader)).unread_mention_count).toBe(0);
  const reply = await calls.sent(reader, group, 'on it', { reply_to_message_id: all.id });
  expect(reply.reply_to_message_id).toBe(all.id);
});

it('a member device that was away replays the changes it missed; a fresh history read agrees', async () => {
  const sent = await calls.sent(author, group, 'v1');
  const away = device(reader);
  await away.next('message.new', about(sent.id));
  const position = away.position;
  away.close();
  expectOk(await calls.edit(author, group, sent.id, 'v2'));
  expectOk(await calls.react(owner, group, sent.id, { ciphertext: b64('ok') }));
  expectOk(await calls.pin(owner, group, sent.id));
  const back = await connect(reader, position);
  devices.set(addressOf(reader), back);
  expect(back.hello.resumed).toBe(true);
  await back.next('message.pinned', about(sent.id));
  expect(back.frames.filter(about(sent.id)).map((frame) => frame.type)).toEqual([
    'message.edited',
    'message.reaction',
    'message.pinned',
  ]);
  const current = (await calls.byId(reader, group)).get(sent.id)!;
  expect(current).toMatchObject({ edit_count: 1, pinned: true });
  expect(text(current.ciphertext)).toBe('v2');
  expect(current.reactions).toHaveLength(1);
});
