/**
 * Polls in every conversation, on the single process (role `all`) over real HTTP, gRPC and
 * WebSocket clients: the spec's bare poll request (no target) is accepted and belongs to its
 * creator alone; the creator sends it with `poll_id` to a direct chat, a group and a channel
 * and the votes are the poll's, counted once across the three; a poll created in a group is a
 * group message, delivered live, in history and replayed, with live results to the members;
 * who reads a poll is evaluated at each request (non-members, departed members and later
 * joiners get 404 on get, vote and the results); sending a poll twice to one conversation.
 */
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { GroupCalls, addressOf, newMessageId } from '../groups/group-support.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const groups = new GroupCalls(() => api);
let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
let dave: SignedIn;
let stranger: SignedIn;
const sockets: RealtimeClient[] = [];

beforeAll(async () => {
  [alice, bob, carol, dave, stranger] = (await Promise.all(
    Array.from({ length: 5 }, () => signIn(service.baseUrl)),
  )) as [SignedIn, SignedIn, SignedIn, SignedIn, SignedIn];
});
afterAll(() => sockets.forEach((socket) => socket.close()));

const BARE = { question: 'Where do we meet?', options: ['Cafe', 'Park', 'Office'] };
const create = (by: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/polls', body, bearer(by));
const read = (by: SignedIn, pollId: string) => api.get(`/api/v1/polls/${pollId}`, bearer(by));
const vote = (by: SignedIn, pollId: string, optionIds: string[]) =>
  api.post('/api/v1/polls/vote', { poll_id: pollId, option_ids: optionIds }, bearer(by));
/** SendMessage with `poll_id` to one target. */
const sendPoll = (
  by: SignedIn,
  pollId: string,
  target: Record<string, string>,
  clientMessageId = newMessageId(),
) =>
  api.post(
    '/api/v1/send',
    { client_message_id: clientMessageId, poll_id: pollId, ...target },
    bearer(by),
  );
const publicChannel = async (owner: SignedIn, name: string): Promise<string> =>
  expectOk(await api.post('/api/v1/channels', { name, is_public: true }, bearer(owner))).channel
    .id as string;
const optionId = (poll: { options: { id: string }[] }, index: number) => poll.options[index]!.id;

async function connect(user: SignedIn): Promise<RealtimeClient> {
  const socket = await RealtimeClient.connect(service.baseUrl, service.baseUrl, user.accessToken);
  sockets.push(socket);
  return socket;
}

/** A native gRPC client of one service, and a caller's credentials for it. */
const grpcOf = (proto: string, name: string) => grpcClient(service.grpcAddress, proto, name);
function metadataOf(user: SignedIn): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${user.accessToken}`);
  return metadata;
}

describe('the spec’s bare poll', () => {
  it('is accepted with only question and options, over REST and gRPC, and is its creator’s alone', async () => {
    const poll = expectOk(await create(alice, BARE)).poll;
    expect(poll).toMatchObject({ question: BARE.question, creator_address: addressOf(alice) });
    expect(expectOk(await read(alice, poll.id)).poll.id).toBe(poll.id);
    expect(expectOk(await vote(alice, poll.id, [optionId(poll, 0)])).poll.total_votes).toBe(1);
    expectFailure(await read(bob, poll.id), 404, 'NOT_FOUND');
    expectFailure(await vote(bob, poll.id, [optionId(poll, 0)]), 404, 'NOT_FOUND');
    expect(
      expectOk(await api.get('/api/v1/polls', bearer(alice))).polls.map(
        (item: { id: string }) => item.id,
      ),
    ).toContain(poll.id);

    const client = grpcOf('service/v1/polls.proto', 'service.v1.PollsService');
    try {
      const created = await unary(client, 'CreatePoll', BARE, metadataOf(alice));
      expect(created.poll).toMatchObject({ question: BARE.question, total_votes: 0 });
      await expect(
        unary(client, 'GetPoll', { poll_id: created.poll.id }, metadataOf(bob)),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      client.close();
    }
  });
});

describe('one poll sent to a chat, a group and a channel', () => {
  it('delivers it in each, shows it to each one’s readers and counts each voter once', async () => {
    const groupId = await groups.create(alice, [bob, carol]);
    const channelId = await publicChannel(alice, 'poll everywhere');
    expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(dave)));
    const [bobSocket, daveSocket] = [await connect(bob), await connect(dave)];
    const poll = expectOk(await create(alice, BARE)).poll;

    const direct = expectOk(
      await sendPoll(alice, poll.id, { recipient_address: bob.user.address }),
    );
    expect(direct).toMatchObject({ duplicate: false });
    expect(direct.chat_message).toMatchObject({ kind: 'poll', poll_id: poll.id, ciphertext: '' });
    const inGroup = expectOk(await sendPoll(alice, poll.id, { group_id: groupId })).chat_message;
    expect(inGroup).toMatchObject({ kind: 'poll', poll_id: poll.id, group_id: groupId });
    const inChannel = expectOk(
      await sendPoll(alice, poll.id, { channel_id: channelId }),
    ).chat_message;
    expect(inChannel).toMatchObject({ kind: 'poll', poll_id: poll.id, channel_id: channelId });

    // Bob has it twice (his chat and the group): one message each, live.
    for (const id of [direct.chat_message.id, inGroup.id])
      await bobSocket.next('message.new', (event) => event.data.message.id === id);
    await daveSocket.next(
      'channel.post',
      (event) => event.channel_id === channelId && event.data.post.poll_id === poll.id,
    );

    // Bob (chat and group), carol (group), dave (channel) and a public channel's reader vote.
    expectOk(await vote(bob, poll.id, [optionId(poll, 0)]));
    expectOk(await vote(carol, poll.id, [optionId(poll, 1)]));
    const client = grpcOf('service/v1/polls.proto', 'service.v1.PollsService');
    try {
      await unary(
        client,
        'VotePoll',
        { poll_id: poll.id, option_ids: [optionId(poll, 1)] },
        metadataOf(dave),
      );
    } finally {
      client.close();
    }
    expectOk(await vote(stranger, poll.id, [optionId(poll, 2)]));
    // Bob changes his vote: still one voter.
    expectOk(await vote(bob, poll.id, [optionId(poll, 2)]));

    for (const reader of [alice, bob, carol, dave, stranger]) {
      const seen = expectOk(await read(reader, poll.id)).poll;
      expect(seen).toMatchObject({ id: poll.id, total_votes: 4 });
      expect(seen.options.map((option: { vote_count: number }) => option.vote_count)).toEqual([
        0, 2, 2,
      ]);
    }
    expect(
      expectOk(await groups.history(carol, groupId)).messages.map(
        (message: { poll_id: string }) => message.poll_id,
      ),
    ).toContain(poll.id);
    expect(
      expectOk(await api.get(`/api/v1/polls?channel_id=${channelId}`, bearer(stranger))).polls[0]
        .id,
    ).toBe(poll.id);
    expect(
      expectOk(
        await api.get(`/api/v1/polls?peer_address=${alice.user.address}`, bearer(bob)),
      ).polls.map((item: { id: string }) => item.id),
    ).toEqual([poll.id]);
  });

  it('sends over native gRPC SendMessage as well', async () => {
    const poll = expectOk(await create(alice, BARE)).poll;
    const client = grpcOf('service/v1/messages.proto', 'service.v1.MessagesService');
    try {
      const sent = await unary(
        client,
        'SendMessage',
        {
          client_message_id: newMessageId(),
          poll_id: poll.id,
          recipient_address: carol.user.address,
        },
        metadataOf(alice),
      );
      expect(sent.chat_message).toMatchObject({ kind: 'poll', poll_id: poll.id });
      await expect(
        unary(
          client,
          'SendMessage',
          { client_message_id: newMessageId(), poll_id: poll.id, group_id: 'x' },
          metadataOf(carol),
        ),
      ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
    } finally {
      client.close();
    }
    expect(expectOk(await read(carol, poll.id)).poll.id).toBe(poll.id);
  });

  it('answers a retry with the first message, refuses a second send to the same conversation, and lets only the creator send', async () => {
    const poll = expectOk(await create(alice, BARE)).poll;
    const target = { recipient_address: carol.user.address };
    const key = newMessageId();
    const first = expectOk(await sendPoll(alice, poll.id, target, key));
    const retried = expectOk(await sendPoll(alice, poll.id, target, key));
    expect(retried).toMatchObject({ duplicate: true });
    expect(retried.chat_message.id).toBe(first.chat_message.id);
    expectFailure(await sendPoll(alice, poll.id, target), 409, 'CONFLICT');
    // Carol sees it, but it is alice's to send; bob does not see it at all.
    expectFailure(
      await sendPoll(carol, poll.id, { recipient_address: bob.user.address }),
      403,
      'FORBIDDEN',
    );
    expectFailure(
      await sendPoll(bob, poll.id, { recipient_address: carol.user.address }),
      404,
      'NOT_FOUND',
    );
    const history = expectOk(
      await api.get(`/api/v1/messages?peer_address=${alice.user.address}`, bearer(carol)),
    ).messages.filter((message: { poll_id: string }) => message.poll_id === poll.id);
    expect(history).toHaveLength(1);

    const groupId = await groups.create(alice, [bob]);
    const channelId = await publicChannel(alice, 'poll twice');
    const places: Record<string, string>[] = [{ group_id: groupId }, { channel_id: channelId }];
    for (const place of places) {
      expectOk(await sendPoll(alice, poll.id, place));
      expectFailure(await sendPoll(alice, poll.id, place), 409, 'CONFLICT');
    }
    // Where the creator may not write: someone else's group and channel.
    const foreignGroup = await groups.create(bob, [carol]);
    const foreignChannel = await publicChannel(bob, 'not alice’s');
    expectFailure(await sendPoll(alice, poll.id, { group_id: foreignGroup }), 404, 'NOT_FOUND');
    expectFailure(await sendPoll(alice, poll.id, { channel_id: foreignChannel }), 403, 'FORBIDDEN');
  });
});

describe('a poll created in a group', () => {
  it('is a group message, live and in history, that members see and vote on, with live results; others get 404', async () => {
    const groupId = await groups.create(alice, [bob, carol]);
    const [bobSocket, carolSocket, strangerSocket] = [
      await connect(bob),
      await connect(carol),
      await connect(stranger),
    ];
    const poll = expectOk(await create(alice, { ...BARE, group_id: groupId })).poll;
    const delivered = await bobSocket.next(
      'message.new',
      (event) => event.data.message.poll_id === poll.id,
    );
    expect(delivered.data.message).toMatchObject({
      kind: 'poll',
      group_id: groupId,
      sender_address: addressOf(alice),
    });
    const [inHistory] = expectOk(await groups.history(carol, groupId)).messages.filter(
      (message: { poll_id: string }) => message.poll_id === poll.id,
    );
    expect(inHistory).toMatchObject({ kind: 'poll', id: delivered.data.message.id });

    expectFailure(await read(stranger, poll.id), 404, 'NOT_FOUND');
    expectFailure(await vote(stranger, poll.id, [optionId(poll, 0)]), 404, 'NOT_FOUND');
    expectOk(await vote(carol, poll.id, [optionId(poll, 1)]));
    for (const socket of [bobSocket, carolSocket]) {
      const frame = await socket.next('poll.updated', (event) => event.data.poll_id === poll.id);
      expect(frame.data).toMatchObject({ total_votes: 1, options: [{}, { vote_count: 1 }, {}] });
    }
    expect(expectOk(await read(bob, poll.id)).poll).toMatchObject({
      total_votes: 1,
      has_voted: false,
    });
    await sleep(200);
    expect(strangerSocket.ofType('poll.updated')).toHaveLength(0);
  });

  it('is replayed to a member who reconnects from before it', async () => {
    const groupId = await groups.create(alice, [bob]);
    const away = await connect(bob);
    const position = away.position;
    away.close();
    const poll = expectOk(await create(alice, { ...BARE, group_id: groupId })).poll;
    const back = await RealtimeClient.connect(
      service.baseUrl,
      service.baseUrl,
      bob.accessToken,
      position,
    );
    sockets.push(back);
    const replayed = await back.next(
      'message.new',
      (event) => event.data.message.poll_id === poll.id,
    );
    expect(replayed.data.message).toMatchObject({ kind: 'poll', group_id: groupId });
  });

  it('is no longer seen by a member who leaves, nor by one who joined after it (404 on get, vote and results)', async () => {
    const groupId = await groups.create(alice, [bob, carol]);
    const poll = expectOk(await create(alice, { ...BARE, group_id: groupId })).poll;
    expectOk(await read(carol, poll.id));
    expectOk(await api.post(`/api/v1/groups/${groupId}/leave`, {}, bearer(carol)));
    const carolSocket = await connect(carol);
    expectFailure(await read(carol, poll.id), 404, 'NOT_FOUND');
    expectFailure(await vote(carol, poll.id, [optionId(poll, 0)]), 404, 'NOT_FOUND');

    expectOk(await groups.join(dave, await groups.inviteCode(alice, groupId)));
    expectFailure(await read(dave, poll.id), 404, 'NOT_FOUND');
    expectFailure(await vote(dave, poll.id, [optionId(poll, 0)]), 404, 'NOT_FOUND');
    const daveSocket = await connect(dave);

    // Results of the old poll skip them both; a poll sent after dave joined is his to read.
    expectOk(await vote(bob, poll.id, [optionId(poll, 2)]));
    const later = expectOk(await create(alice, BARE)).poll;
    expectOk(await sendPoll(alice, later.id, { group_id: groupId }));
    expect(expectOk(await read(dave, later.id)).poll.id).toBe(later.id);
    expectOk(await vote(dave, later.id, [optionId(later, 0)]));
    await daveSocket.next('poll.updated', (event) => event.data.poll_id === later.id);
    await sleep(200);
    for (const socket of [carolSocket, daveSocket])
      expect(
        socket.ofType('poll.updated').filter((event) => event.data.poll_id === poll.id),
      ).toHaveLength(0);
  });
});
