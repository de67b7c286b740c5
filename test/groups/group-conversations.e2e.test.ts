/**
 * Groups on the single process, over real HTTP and WebSocket clients: creation and its bad
 * input, invite codes (use count, revocation, idempotent joining, rejoining after removal),
 * the group-size limit, and the group conversation on the messaging core (idempotent sends,
 * history from joining, chat list with unread counts, read markers, delivery and read
 * receipts, typing, membership events, the blocking rule).
 */
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { realtimeClientsForThisFile } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { GroupCalls, addressOf, b64, newMessageId } from './group-support.js';

const MAX_MEMBERS = 4;
const { service, api } = serviceForThisFile({ GROUP_MAX_MEMBERS: String(MAX_MEMBERS) });
const groups = new GroupCalls(() => api);
const connect = realtimeClientsForThisFile(service);

const users = (count: number) =>
  Promise.all(Array.from({ length: count }, () => signIn(service.baseUrl)));
const createGroup = (owner: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/groups/create', body, bearer(owner));

describe('creating', () => {
  it('makes the caller owner, adds the initial members once, and lists it for each of them', async () => {
    const [owner, bob, carol] = await users(3);
    const body = expectOk(
      await createGroup(owner!, {
        name: ' Book club ',
        description: 'Fiction',
        member_addresses: [
          bob!.user.address.toUpperCase().replace('0X', '0x'),
          addressOf(bob!),
          addressOf(owner!),
          carol!.user.address,
        ],
      }),
    );
    expect(body.group).toMatchObject({
      name: 'Book club',
      description: 'Fiction',
      owner_address: addressOf(owner!),
      member_count: 3,
      my_role: 'owner',
      id: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/),
    });
    expect(
      body.members.map((member: { address: string; role: string }) => [
        member.address,
        member.role,
      ]),
    ).toEqual([
      [addressOf(owner!), 'owner'],
      [addressOf(bob!), 'member'],
      [addressOf(carol!), 'member'],
    ]);
    const listed = expectOk(await api.get('/api/v1/groups', bearer(bob!)));
    expect(listed.groups).toEqual([
      expect.objectContaining({ id: body.group.id, my_role: 'member', member_count: 3 }),
    ]);
  });

  it("pages the caller's groups, most recently joined first", async () => {
    const [owner] = await users(1);
    const ids = [];
    for (let i = 0; i < 3; i += 1) ids.push(await groups.create(owner!, [], `G${i}`));
    const first = expectOk(await api.get('/api/v1/groups?page_size=2', bearer(owner!)));
    const second = expectOk(
      await api.get(`/api/v1/groups?page_size=2&cursor=${first.next_cursor}`, bearer(owner!)),
    );
    expect([...first.groups, ...second.groups].map((group: { id: string }) => group.id)).toEqual(
      ids.reverse(),
    );
    expect(second.next_cursor).toBe('');
    expectFailure(
      await api.get('/api/v1/groups?page_size=201', bearer(owner!)),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('leaves out initial members who have blocked the creator', async () => {
    const [owner, blocker, friend] = await users(3);
    expectOk(
      await api.post('/api/v1/block-contact', { address: owner!.user.address }, bearer(blocker!)),
    );
    const body = expectOk(
      await createGroup(owner!, {
        name: 'Party',
        member_addresses: [blocker!.user.address, friend!.user.address],
      }),
    );
    expect(body.members.map((member: { address: string }) => member.address)).toEqual([
      addressOf(owner!),
      addressOf(friend!),
    ]);
    expect(expectOk(await api.get('/api/v1/groups', bearer(blocker!))).groups).toEqual([]);
  });

  it('refuses bad input with the envelope', async () => {
    const [owner] = await users(1);
    expectFailure(await createGroup(owner!, { name: '' }), 400, 'INVALID_ARGUMENT');
    expectFailure(await createGroup(owner!, { name: '   ' }), 400, 'INVALID_ARGUMENT');
    expectFailure(await createGroup(owner!, { name: 'n'.repeat(65) }), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await createGroup(owner!, { name: 'ok', description: 'd'.repeat(513) }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await createGroup(owner!, { name: 'ok', member_addresses: ['0x1234'] }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await createGroup(owner!, {
        name: 'ok',
        member_addresses: Array.from(
          { length: 257 },
          (_, i) => `0x${i.toString(16).padStart(40, '0')}`,
        ),
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await createGroup(owner!, { name: 'ok', member_addresses: [`0x${'cd'.repeat(20)}`] }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await createGroup(owner!, { name: 'ok', avatar_media_id: 'no-such-media' }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await createGroup(owner!, { name: 'ok', unknown_field: 1 }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await api.post('/api/v1/groups/create', { name: 'ok' }), 401, 'UNAUTHORIZED');
    expectFailure(await api.get('/api/v1/groups/no-such-group', bearer(owner!)), 404, 'NOT_FOUND');
    expectFailure(await groups.leave(owner!, 'no-such-group'), 404, 'NOT_FOUND');
  });
});

describe('invite codes', () => {
  it('admit up to their use count; joining twice is idempotent and does not use the code', async () => {
    const [owner, first, second] = await users(3);
    const groupId = await groups.create(owner!, []);
    const code = await groups.inviteCode(owner!, groupId, { max_uses: 1 });
    expect(expectOk(await groups.join(first!, code))).toMatchObject({
      already_member: false,
      group: { id: groupId, my_role: 'member', member_count: 2 },
    });
    expect(expectOk(await groups.join(first!, code))).toMatchObject({
      already_member: true,
      group: { member_count: 2 },
    });
    expectFailure(await groups.join(second!, code), 410, 'GONE');
    expectFailure(await groups.join(second!, 'A'.repeat(22)), 404, 'NOT_FOUND');
    expectFailure(await groups.join(second!, 'short'), 404, 'NOT_FOUND');
  });

  it('a code with one use left admits one of many concurrent joiners', async () => {
    const [owner, ...joiners] = await users(4);
    const groupId = await groups.create(owner!, []);
    const code = await groups.inviteCode(owner!, groupId, { max_uses: 1 });
    const replies = await Promise.all(joiners.map((joiner) => groups.join(joiner, code)));
    expect(replies.map((reply) => reply.status).sort()).toEqual([200, 410, 410]);
    expect(expectOk(await groups.get(owner!, groupId)).group.member_count).toBe(2);
  });

  it('a revoked code admits nobody; a removed member comes back only with a code made after the removal', async () => {
    const [owner, member] = await users(2);
    const groupId = await groups.create(owner!, []);
    const old = await groups.inviteCode(owner!, groupId);
    const revoked = await groups.inviteCode(owner!, groupId);
    expectOk(await api.delete(`/api/v1/groups/${groupId}/invites/${revoked}`, bearer(owner!)));
    expectOk(await api.delete(`/api/v1/groups/${groupId}/invites/${revoked}`, bearer(owner!)));
    expectFailure(await groups.join(member!, revoked), 404, 'NOT_FOUND');
    expectOk(await groups.join(member!, old));
    expectOk(await groups.remove(owner!, groupId, addressOf(member!)));
    expectFailure(await groups.join(member!, old), 403, 'FORBIDDEN');
    await sleep(5);
    const fresh = await groups.inviteCode(owner!, groupId);
    expect(expectOk(await groups.join(member!, fresh)).already_member).toBe(false);
    // Still only codes made after the removal, also after leaving again.
    expectOk(await groups.leave(member!, groupId));
    expectFailure(await groups.join(member!, old), 403, 'FORBIDDEN');
    expectOk(await groups.join(member!, fresh));
    // Someone who left on their own (never removed) may use any valid code.
    const [leaver] = await users(1);
    expectOk(await groups.join(leaver!, old));
    expectOk(await groups.leave(leaver!, groupId));
    expect(expectOk(await groups.join(leaver!, old)).already_member).toBe(false);
  });
});

describe('the group-size limit', () => {
  it(`refuses a creation or a join past GROUP_MAX_MEMBERS (${MAX_MEMBERS}) with 409, and gives the invite use back`, async () => {
    const [owner, a, b, c, d] = await users(5);
    expectFailure(
      await createGroup(owner!, {
        name: 'Too big',
        member_addresses: [a, b, c, d].map((each) => each!.user.address),
      }),
      409,
      'CONFLICT',
    );
    const groupId = await groups.create(owner!, [a!, b!]);
    const code = await groups.inviteCode(owner!, groupId, { max_uses: 2 });
    expectOk(await groups.join(c!, code));
    expectFailure(await groups.join(d!, code), 409, 'CONFLICT');
    expectOk(await groups.leave(a!, groupId));
    // The refused join did not spend the code's second use.
    expectOk(await groups.join(d!, code));
    expect(expectOk(await groups.get(owner!, groupId)).group.member_count).toBe(MAX_MEMBERS);
  });
});

describe('the group conversation', () => {
  it('sends idempotently, pages history, counts unread messages in the chat list, moves read markers per member', async () => {
    const [owner, bob] = await users(2);
    const groupId = await groups.create(owner!, [bob!], 'Chat');
    const id = newMessageId();
    const first = expectOk(await groups.send(owner!, groupId, 'one', id));
    expect(expectOk(await groups.send(owner!, groupId, 'one', id))).toMatchObject({
      duplicate: true,
      chat_message: { id: first.chat_message.id },
    });
    expectFailure(await groups.send(owner!, groupId, 'other body', id), 409, 'CONFLICT');
    for (const text of ['two', 'three']) expectOk(await groups.send(owner!, groupId, text));
    const page = expectOk(await groups.history(bob!, groupId, '&page_size=2'));
    expect(page.messages.map((message: { sequence: number }) => message.sequence)).toEqual([3, 4]);
    const older = expectOk(
      await groups.history(bob!, groupId, `&page_size=2&before_cursor=${page.before_cursor}`),
    );
    expect(
      older.messages.map((message: { sequence: number; system_event: string }) => [
        message.sequence,
        message.system_event,
      ]),
    ).toEqual([
      [1, 'group_created'],
      [2, ''],
    ]);
    const chat = expectOk(await api.get('/api/v1/chats', bearer(bob!))).chats[0];
    // System messages count as unread, as in direct chats: `group_created` and the three texts.
    expect(chat).toMatchObject({
      type: 'group',
      group_id: groupId,
      title: 'Chat',
      unread_count: 4,
      last_message: { sequence: 4 },
    });
    expect(
      expectOk(
        await api.post(
          '/api/v1/mark-as-read',
          { group_id: groupId, up_to_message_id: page.messages[0].id },
          bearer(bob!),
        ),
      ),
    ).toMatchObject({ unread_count: 1 });
    expect(expectOk(await api.get('/api/v1/chats', bearer(bob!))).chats[0]).toMatchObject({
      group_id: groupId,
      unread_count: 1,
      last_read_message_id: page.messages[0].id,
    });
    // Each member has its own marker: the owner's own texts are not unread to it, `group_created` is.
    expect(expectOk(await api.get('/api/v1/chats', bearer(owner!))).chats[0]).toMatchObject({
      group_id: groupId,
      unread_count: 1,
      last_read_message_id: '',
    });
    // Bob fetched up to 4, the owner had fetched nothing: `sent` until the owner's fetch, which
    // makes what both fetched `delivered` (the system message keeps `sent`).
    expect(
      expectOk(await groups.history(bob!, groupId)).messages.map(
        (message: { status: string }) => message.status,
      ),
    ).toEqual(['sent', 'sent', 'sent', 'sent']);
    expect(
      expectOk(await groups.history(owner!, groupId, '&page_size=2')).messages.map(
        (message: { status: string }) => message.status,
      ),
    ).toEqual(['delivered', 'delivered']);
    const newest = expectOk(await groups.history(owner!, groupId)).messages.at(-1);
    expectOk(
      await api.post(
        '/api/v1/mark-as-read',
        { group_id: groupId, up_to_message_id: newest.id },
        bearer(owner!),
      ),
    );
    // Every member's marker has passed sequences 2 and 3 (bob's stops at 3), not 4.
    const statuses = expectOk(await groups.history(owner!, groupId)).messages.map(
      (message: { sequence: number; status: string }) => [message.sequence, message.status],
    );
    expect(statuses).toEqual([
      [1, 'sent'],
      [2, 'read'],
      [3, 'read'],
      [4, 'delivered'],
    ]);
    expectOk(await groups.rename(owner!, groupId, 'Renamed'));
    expect(expectOk(await api.get('/api/v1/chats', bearer(bob!))).chats[0]).toMatchObject({
      title: 'Renamed',
      last_message: { system_event: 'group_renamed', system_data: { name: 'Renamed' } },
    });
  });

  it('a member who joins later reads from its joining on, and its unread count starts there', async () => {
    const [owner, late] = await users(2);
    const groupId = await groups.create(owner!, []);
    for (const text of ['before 1', 'before 2']) expectOk(await groups.send(owner!, groupId, text));
    expectOk(await groups.join(late!, await groups.inviteCode(owner!, groupId)));
    expectOk(await groups.send(owner!, groupId, 'after'));
    const messages = expectOk(await groups.history(late!, groupId)).messages;
    expect(messages.map((message: { system_event: string }) => message.system_event)).toEqual([
      'member_joined',
      '',
    ]);
    expect(Buffer.from(messages[1].ciphertext, 'base64').toString()).toBe('after');
    const earlier = expectOk(await groups.history(owner!, groupId)).messages[1];
    expectFailure(
      await api.post(
        '/api/v1/mark-as-read',
        { group_id: groupId, up_to_message_id: earlier.id },
        bearer(late!),
      ),
      404,
      'NOT_FOUND',
    );
    // `member_joined` and the text after it; nothing from before the joining.
    expect(expectOk(await api.get('/api/v1/chats', bearer(late!))).chats[0]).toMatchObject({
      group_id: groupId,
      unread_count: 2,
    });
  });

  it('tells typing to the other members, membership changes to all, and refuses non-members', async () => {
    const [owner, bob, outsider] = await users(3);
    const groupId = await groups.create(owner!, [bob!]);
    const bobSocket = await connect(bob!);
    expectOk(
      await api.post('/api/v1/typing', { group_id: groupId, state: 'typing' }, bearer(owner!)),
    );
    expect((await bobSocket.next('typing')).data).toMatchObject({
      group_id: groupId,
      from_address: addressOf(owner!),
      state: 'typing',
    });
    expectOk(await groups.promote(owner!, groupId, addressOf(bob!)));
    expect(
      (
        await bobSocket.next(
          'message.new',
          (frame) => frame.data.message.system_event === 'member_promoted',
        )
      ).data.message.system_data,
    ).toEqual({ actor_address: addressOf(owner!), member_address: addressOf(bob!) });
    expectFailure(await groups.send(outsider!, groupId, 'hi'), 404, 'NOT_FOUND');
    expectFailure(
      await api.post('/api/v1/typing', { group_id: groupId, state: 'typing' }, bearer(outsider!)),
      404,
      'NOT_FOUND',
    );
    expectFailure(await groups.history(outsider!, groupId), 404, 'NOT_FOUND');
    expectFailure(await groups.send(owner!, 'no-such-group', 'hi'), 404, 'NOT_FOUND');
    expectFailure(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newMessageId(),
          group_id: groupId,
          recipient_address: bob!.user.address,
          ciphertext: b64('x'),
        },
        bearer(owner!),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newMessageId(),
          group_id: groupId,
          ciphertext: b64('x'),
          view_once: true,
        },
        bearer(owner!),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it("blocking rule: a blocker still receives the blocked member's group messages, with the sender named", async () => {
    const [owner, blocker, blocked] = await users(3);
    const groupId = await groups.create(owner!, [blocker!, blocked!]);
    expectOk(
      await api.post('/api/v1/block-contact', { address: blocked!.user.address }, bearer(blocker!)),
    );
    const socket = await connect(blocker!);
    const sent = expectOk(await groups.send(blocked!, groupId, 'hello all')).chat_message;
    expect(
      (await socket.next('message.new', (frame) => frame.data.message.id === sent.id)).data.message
        .sender_address,
    ).toBe(addressOf(blocked!));
    expect(
      expectOk(await groups.history(blocker!, groupId)).messages.map(
        (message: { id: string }) => message.id,
      ),
    ).toContain(sent.id);
  });
});
