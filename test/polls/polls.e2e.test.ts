/**
 * Polls on the single process (role `all`) over real HTTP, gRPC and WebSocket clients: the
 * exact poll shape, validation bounds, votes and changed votes, per-viewer `has_voted`,
 * concurrent votes of one user, expiry, visibility, live results and the rate limit.
 */
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import type { GrpcServiceClient } from '../support/grpc-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
let stranger: SignedIn;
const sockets: RealtimeClient[] = [];
const addressOf = (user: SignedIn) => user.user.address.toLowerCase();

beforeAll(async () => {
  [alice, bob, carol, stranger] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
});
afterAll(() => sockets.forEach((socket) => socket.close()));

const create = (by: SignedIn, body: Record<string, unknown>) =>
  api.post('/api/v1/polls', body, bearer(by));
const vote = (by: SignedIn, pollId: string, optionIds: string[]) =>
  api.post('/api/v1/polls/vote', { poll_id: pollId, option_ids: optionIds }, bearer(by));
const read = (by: SignedIn, pollId: string) => api.get(`/api/v1/polls/${pollId}`, bearer(by));
/** A direct poll from alice to bob. */
const directPoll = async (body: Record<string, unknown> = {}) =>
  expectOk(
    await create(alice, {
      question: 'Lunch?',
      options: ['Pizza', 'Sushi', 'Tacos'],
      recipient_address: bob.user.address,
      ...body,
    }),
  ).poll;
const optionIds = (poll: { options: { id: string }[] }) => poll.options.map((option) => option.id);
const counts = (poll: { options: { vote_count: number }[] }) =>
  poll.options.map((option) => option.vote_count);

/** A native gRPC client of PollsService, and a caller's credentials for it. */
const pollsClient = (): GrpcServiceClient =>
  grpcClient(service.grpcAddress, 'service/v1/polls.proto', 'service.v1.PollsService');
function metadataOf(user: SignedIn): grpc.Metadata {
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${user.accessToken}`);
  return metadata;
}

async function connect(user: SignedIn): Promise<RealtimeClient> {
  const socket = await RealtimeClient.connect(service.baseUrl, service.baseUrl, user.accessToken);
  sockets.push(socket);
  return socket;
}

/** Every member of the spec's Poll and option, with its JSON type, and nothing else. */
function expectPollShape(poll: Record<string, unknown>): void {
  expect(Object.keys(poll).sort()).toEqual(
    [
      'allows_multiple',
      'created_at',
      'creator_address',
      'expires_at',
      'has_voted',
      'id',
      'is_expired',
      'options',
      'question',
      'total_votes',
    ].sort(),
  );
  expect(poll).toEqual({
    id: expect.any(String),
    question: expect.any(String),
    allows_multiple: expect.any(Boolean),
    created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    creator_address: expect.stringMatching(/^0x[0-9a-f]{40}$/),
    expires_at: expect.any(String),
    is_expired: expect.any(Boolean),
    has_voted: expect.any(Boolean),
    total_votes: expect.any(Number),
    options: expect.any(Array),
  });
  for (const option of poll.options as Record<string, unknown>[]) {
    expect(Object.keys(option).sort()).toEqual([
      'has_voted',
      'id',
      'poll_id',
      'text',
      'vote_count',
    ]);
    expect(option).toEqual({
      id: expect.any(String),
      poll_id: poll.id,
      text: expect.any(String),
      vote_count: expect.any(Number),
      has_voted: expect.any(Boolean),
    });
  }
}

describe('the poll shape', () => {
  it('prints every member with its type, defaults included, from create, get and vote, on both prefixes', async () => {
    const created = await directPoll();
    expectPollShape(created);
    expect(created).toMatchObject({
      question: 'Lunch?',
      allows_multiple: false,
      creator_address: addressOf(alice),
      expires_at: '',
      is_expired: false,
      has_voted: false,
      total_votes: 0,
    });
    expect(created.options.map((option: { text: string }) => option.text)).toEqual([
      'Pizza',
      'Sushi',
      'Tacos',
    ]);
    const legacy = await api.post(
      '/api/polls',
      { question: 'Legacy?', options: ['a', 'b'], recipient_address: bob.user.address },
      bearer(alice),
    );
    expect(expectOk(legacy)).toMatchObject({ success: true, message: expect.any(String) });
    expectPollShape(expectOk(legacy).poll);
    const got = expectOk(await api.get(`/api/polls/${created.id}`, bearer(bob)));
    expectPollShape(got.poll);
    const voted = expectOk(await vote(bob, created.id, [created.options[1].id]));
    expectPollShape(voted.poll);
    expect(voted.poll).toMatchObject({ has_voted: true, total_votes: 1 });
  });
});

describe('validation', () => {
  const base = () => ({ question: 'Q?', options: ['a', 'b'], recipient_address: bob.user.address });
  it('accepts 2 and 10 options and refuses 1 and 11', async () => {
    expect((await directPoll({ options: ['a', 'b'] })).options).toHaveLength(2);
    const ten = Array.from({ length: 10 }, (_, i) => `option ${i}`);
    expect((await directPoll({ options: ten })).options).toHaveLength(10);
    expectFailure(await create(alice, { ...base(), options: ['only'] }), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await create(alice, { ...base(), options: [...ten, 'eleven'] }),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it.each([
    ['an empty option', { options: ['a', ' '] }],
    ['duplicate options', { options: ['Yes', ' Yes'] }],
    ['an option over 100 characters', { options: ['a', 'x'.repeat(101)] }],
    ['an empty question', { question: '' }],
    ['a question over 300 characters', { question: 'q'.repeat(301) }],
    ['an expires_at in the past', { expires_at: new Date(Date.now() - 60_000).toISOString() }],
    ['an unparseable expires_at', { expires_at: 'next tuesday' }],
    ['an expires_at without an offset', { expires_at: '2030-01-01T00:00:00' }],
    [
      'an expires_at more than a year ahead',
      { expires_at: new Date(Date.now() + 400 * 24 * 3600_000).toISOString() },
    ],
    ['both channel_id and recipient_address', { channel_id: 'some-channel' }],
    ['both group_id and recipient_address', { group_id: 'some-group' }],
    ['a malformed recipient_address', { recipient_address: '0x123' }],
    ['the caller as recipient', { recipient_address: '', self: true }],
    ['options of the wrong type', { options: 'a,b' }],
    ['a question of the wrong type', { question: 42 }],
  ])('refuses %s with 400', async (_, override) => {
    const body: Record<string, unknown> = { ...base(), ...override };
    if (body.self) {
      delete body.self;
      body.recipient_address = alice.user.address;
    }
    expectFailure(await create(alice, body), 400, 'INVALID_ARGUMENT');
  });

  it('accepts the bounds themselves', async () => {
    const poll = await directPoll({
      question: 'q'.repeat(300),
      options: ['a', '😀'.repeat(100)],
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
    });
    expect(poll.options[1].text).toBe('😀'.repeat(100));
    expect(Date.parse(poll.expires_at)).toBeGreaterThan(Date.now());
  });

  it('refuses an unregistered recipient with 404 and a malformed body with 400', async () => {
    expectFailure(
      await create(alice, { ...base(), recipient_address: `0x${'9'.repeat(40)}` }),
      404,
      'NOT_FOUND',
    );
    const malformed = await fetch(api.url('/api/v1/polls'), {
      method: 'POST',
      body: '{"question":',
      headers: { ...bearer(alice), 'content-type': 'application/json' },
    });
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({ success: false });
  });

  it('refuses bad votes', async () => {
    const poll = await directPoll();
    const other = await directPoll();
    expectFailure(await vote(bob, poll.id, []), 400, 'INVALID_ARGUMENT');
    expectFailure(await vote(bob, '', [poll.options[0].id]), 400, 'INVALID_ARGUMENT');
    expectFailure(await vote(bob, 'x'.repeat(65), [poll.options[0].id]), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await vote(bob, poll.id, [poll.options[0].id, poll.options[1].id]),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await vote(bob, poll.id, [other.options[0].id]), 404, 'NOT_FOUND');
    expectFailure(await vote(bob, poll.id, ['no-such-option']), 404, 'NOT_FOUND');
    expectFailure(await vote(bob, 'unknown-poll', ['x']), 404, 'NOT_FOUND');
    expectFailure(await read(bob, 'unknown-poll'), 404, 'NOT_FOUND');
    const wrongType = await api.post(
      '/api/v1/polls/vote',
      { poll_id: poll.id, option_ids: 'a' },
      bearer(bob),
    );
    expect(wrongType.status).toBe(400);
    expect((await api.get(`/api/v1/polls/${poll.id}`)).status).toBe(401);
    expect(expectOk(await read(bob, poll.id)).poll.total_votes).toBe(0);
  });
});

describe('voting', () => {
  it('records a vote, changes it, and shows has_voted per viewer', async () => {
    const poll = await directPoll();
    const [pizza, sushi] = optionIds(poll);
    expect(expectOk(await vote(bob, poll.id, [pizza!])).poll).toMatchObject({
      has_voted: true,
      total_votes: 1,
    });
    const changed = expectOk(await vote(bob, poll.id, [sushi!])).poll;
    expect(counts(changed)).toEqual([0, 1, 0]);
    expect(changed.options.map((option: { has_voted: boolean }) => option.has_voted)).toEqual([
      false,
      true,
      false,
    ]);
    const seenByAlice = expectOk(await read(alice, poll.id)).poll;
    expect(seenByAlice).toMatchObject({ has_voted: false, total_votes: 1 });
    expect(seenByAlice.options.every((option: { has_voted: boolean }) => !option.has_voted)).toBe(
      true,
    );
    expectOk(await vote(alice, poll.id, [sushi!]));
    expect(expectOk(await read(bob, poll.id)).poll).toMatchObject({
      has_voted: true,
      total_votes: 2,
    });
    expect(counts(expectOk(await read(bob, poll.id)).poll)).toEqual([0, 2, 0]);
  });

  it('counts a multiple-choice poll: total_votes is the number of voters', async () => {
    const poll = await directPoll({ allows_multiple: true });
    const [a, b, c] = optionIds(poll);
    expectOk(await vote(bob, poll.id, [a!, b!, c!]));
    const after = expectOk(await vote(alice, poll.id, [b!])).poll;
    expect(after.total_votes).toBe(2);
    expect(counts(after)).toEqual([1, 2, 1]);
    expectFailure(await vote(bob, poll.id, [a!, a!]), 400, 'INVALID_ARGUMENT');
    expect(counts(expectOk(await vote(bob, poll.id, [c!])).poll)).toEqual([0, 1, 1]);
  });

  it('leaves one vote when one user votes concurrently from two clients (REST and gRPC)', async () => {
    const poll = await directPoll();
    const ids = optionIds(poll);
    const client = pollsClient();
    const metadata = metadataOf(bob);
    try {
      await Promise.all(
        Array.from({ length: 12 }, (_, i) =>
          i % 2 === 0
            ? vote(bob, poll.id, [ids[i % 3]!]).then(expectOk)
            : unary(client, 'VotePoll', { poll_id: poll.id, option_ids: [ids[i % 3]!] }, metadata),
        ),
      );
    } finally {
      client.close();
    }
    const final = expectOk(await read(bob, poll.id)).poll;
    expect(final.total_votes).toBe(1);
    expect(counts(final).reduce((sum: number, count: number) => sum + count, 0)).toBe(1);
    expect(final.options.filter((option: { has_voted: boolean }) => option.has_voted)).toHaveLength(
      1,
    );
  });

  it('refuses votes on an expired poll with POLL_EXPIRED and reports is_expired', async () => {
    const poll = await directPoll({ expires_at: new Date(Date.now() + 1500).toISOString() });
    expectOk(await vote(bob, poll.id, [poll.options[0].id]));
    await sleep(1700);
    expectFailure(await vote(bob, poll.id, [poll.options[1].id]), 400, 'POLL_EXPIRED');
    const expired = expectOk(await read(bob, poll.id)).poll;
    expect(expired).toMatchObject({ is_expired: true, total_votes: 1 });
    expect(counts(expired)).toEqual([1, 0, 0]);
  });
});

describe('visibility', () => {
  it('shows a direct poll to its creator and recipient only (404 for anyone else)', async () => {
    const poll = await directPoll();
    expectOk(await read(alice, poll.id));
    expectOk(await read(bob, poll.id));
    expectFailure(await read(stranger, poll.id), 404, 'NOT_FOUND');
    expectFailure(await vote(stranger, poll.id, [poll.options[0].id]), 404, 'NOT_FOUND');
  });

  it('delivers a direct poll as a poll message carrying its id', async () => {
    const socket = await connect(bob);
    const poll = await directPoll();
    const frame = await socket.next(
      'message.new',
      (event) => event.data.message.poll_id === poll.id,
    );
    expect(frame.data.message).toMatchObject({
      kind: 'poll',
      sender_address: addressOf(alice),
      poll_id: poll.id,
    });
  });

  it('refuses a poll to a user who was blocked by the creator, and stores nothing', async () => {
    expectOk(
      await api.post('/api/v1/block-contact', { address: carol.user.address }, bearer(alice)),
    );
    expectFailure(
      await create(alice, {
        question: 'Q?',
        options: ['a', 'b'],
        recipient_address: carol.user.address,
      }),
      403,
      'FORBIDDEN',
    );
    expectOk(
      await api.post('/api/v1/unblock-contact', { address: carol.user.address }, bearer(alice)),
    );
  });

  it('withholds a poll from a recipient who has blocked its creator, as it withholds the message', async () => {
    const [blocker, blocked] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
    expectOk(
      await api.post('/api/v1/block-contact', { address: blocked.user.address }, bearer(blocker)),
    );
    const poll = expectOk(
      await create(blocked, {
        question: 'Hidden?',
        options: ['a', 'b'],
        recipient_address: blocker.user.address,
      }),
    ).poll;
    expectFailure(await read(blocker, poll.id), 404, 'NOT_FOUND');
    expectFailure(await vote(blocker, poll.id, [poll.options[0].id]), 404, 'NOT_FOUND');
    expect(expectOk(await api.get('/api/v1/polls', bearer(blocker))).polls).toEqual([]);
    expect(expectOk(await read(blocked, poll.id)).poll.id).toBe(poll.id);
    expect(
      expectOk(
        await api.get(`/api/v1/polls?peer_address=${blocker.user.address}`, bearer(blocked)),
      ).polls.map((item: { id: string }) => item.id),
    ).toEqual([poll.id]);
  });

  it('lets those who may publish post a poll in a channel, and its readers see and vote', async () => {
    const privateId = expectOk(
      await api.post(
        '/api/v1/channels',
        { name: 'private polls', is_public: false, admin_addresses: [bob.user.address] },
        bearer(alice),
      ),
    ).channel.id as string;
    expectFailure(
      await create(stranger, { question: 'Q?', options: ['a', 'b'], channel_id: privateId }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await create(alice, { question: 'Q?', options: ['a', 'b'], channel_id: 'no-such-channel' }),
      404,
      'NOT_FOUND',
    );
    const hidden = expectOk(
      await create(bob, {
        question: 'Admins may post',
        options: ['a', 'b'],
        channel_id: privateId,
      }),
    ).poll;
    expectFailure(await read(stranger, hidden.id), 404, 'NOT_FOUND');
    expectFailure(await vote(stranger, hidden.id, [hidden.options[0].id]), 404, 'NOT_FOUND');
    expect(expectOk(await vote(alice, hidden.id, [hidden.options[0].id])).poll.total_votes).toBe(1);

    const publicId = expectOk(
      await api.post('/api/v1/channels', { name: 'public polls', is_public: true }, bearer(alice)),
    ).channel.id as string;
    expectOk(await api.post(`/api/v1/channels/${publicId}/subscribe`, {}, bearer(carol)));
    expectFailure(
      await create(carol, { question: 'Q?', options: ['a', 'b'], channel_id: publicId }),
      403,
      'FORBIDDEN',
    );
    const open = expectOk(
      await create(alice, { question: 'Public?', options: ['a', 'b'], channel_id: publicId }),
    ).poll;
    expect(expectOk(await vote(carol, open.id, [open.options[1].id])).poll).toMatchObject({
      has_voted: true,
      total_votes: 1,
    });
  });

  it('posts a channel poll to the subscribers as a poll post carrying its id', async () => {
    const channelId = expectOk(
      await api.post('/api/v1/channels', { name: 'poll posts', is_public: true }, bearer(alice)),
    ).channel.id as string;
    expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(carol)));
    const socket = await connect(carol);
    const poll = expectOk(
      await create(alice, {
        question: 'Seen live?',
        options: ['yes', 'no'],
        channel_id: channelId,
      }),
    ).poll;
    const frame = await socket.next('channel.post', (event) => event.channel_id === channelId);
    expect(frame.data.post).toMatchObject({
      kind: 'poll',
      poll_id: poll.id,
      sender_address: addressOf(alice),
      sequence: 1,
      ciphertext: '',
    });
    const posts = expectOk(await api.get(`/api/v1/channels/${channelId}/posts`, bearer(carol)));
    expect(JSON.stringify(posts)).toContain(poll.id);
  });
});

describe('listing', () => {
  it('lists the caller’s direct polls newest first, by peer and by channel, with paging', async () => {
    const [dana, erin] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
    const ask = async (by: SignedIn, body: { n: number } & Record<string, unknown>) =>
      expectOk(
        await create(by, { question: `Q${body.n}`, options: ['a', 'b'], ...body, n: undefined }),
      ).poll.id as string;
    const first = await ask(dana, { n: 1, recipient_address: erin.user.address });
    const second = await ask(erin, { n: 2, recipient_address: dana.user.address });
    const third = await ask(dana, { n: 3, recipient_address: alice.user.address });
    const channelId = expectOk(
      await api.post('/api/v1/channels', { name: 'listed polls', is_public: false }, bearer(dana)),
    ).channel.id as string;
    const inChannel = await ask(dana, { n: 4, channel_id: channelId });
    expectOk(await vote(erin, second, [expectOk(await read(erin, second)).poll.options[0].id]));

    const all = expectOk(await api.get('/api/v1/polls', bearer(dana)));
    expect(all.polls.map((poll: { id: string }) => poll.id)).toEqual([
      inChannel,
      third,
      second,
      first,
    ]);
    for (const poll of all.polls) expectPollShape(poll);
    expect(all.polls[2]).toMatchObject({ total_votes: 1, has_voted: false });
    expect(
      expectOk(
        await api.get(
          `/api/v1/polls?peer_address=${erin.user.address.toUpperCase().replace('0X', '0x')}`,
          bearer(dana),
        ),
      ).polls.map((poll: { id: string }) => poll.id),
    ).toEqual([second, first]);
    expect(
      expectOk(await api.get(`/api/v1/polls?channel_id=${channelId}`, bearer(dana))).polls.map(
        (poll: { id: string }) => poll.id,
      ),
    ).toEqual([inChannel]);
    expectFailure(
      await api.get(`/api/v1/polls?channel_id=${channelId}`, bearer(erin)),
      404,
      'NOT_FOUND',
    );
    expect(
      expectOk(await api.get('/api/v1/polls', bearer(erin))).polls.map(
        (poll: { id: string }) => poll.id,
      ),
    ).toEqual([second, first]);

    const page1 = expectOk(await api.get('/api/v1/polls?page_size=3', bearer(dana)));
    expect(page1.polls).toHaveLength(3);
    const page2 = expectOk(
      await api.get(`/api/v1/polls?page_size=3&cursor=${page1.next_cursor}`, bearer(dana)),
    );
    expect(page2).toMatchObject({ next_cursor: '' });
    expect(page2.polls.map((poll: { id: string }) => poll.id)).toEqual([first]);

    expectFailure(
      await api.get(
        `/api/v1/polls?channel_id=${channelId}&peer_address=${erin.user.address}`,
        bearer(dana),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get('/api/v1/polls?peer_address=nobody', bearer(dana)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get('/api/v1/polls?page_size=201', bearer(dana)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get('/api/v1/polls?cursor=garbage', bearer(dana)),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('live results', () => {
  it('sends poll.updated to the creator and the recipient of a direct poll', async () => {
    const [aliceSocket, bobSocket, strangerSocket] = [
      await connect(alice),
      await connect(bob),
      await connect(stranger),
    ];
    const poll = await directPoll();
    expectOk(await vote(bob, poll.id, [poll.options[2].id]));
    for (const socket of [aliceSocket, bobSocket]) {
      const frame = await socket.next('poll.updated', (event) => event.data.poll_id === poll.id);
      expect(frame.data).toEqual({
        poll_id: poll.id,
        total_votes: 1,
        is_expired: false,
        options: poll.options.map((option: { id: string }, i: number) => ({
          id: option.id,
          vote_count: i === 2 ? 1 : 0,
        })),
      });
    }
    await sleep(200);
    expect(strangerSocket.ofType('poll.updated')).toHaveLength(0);
  });

  it('sends a channel poll’s results once on the channel topic, to each connected follower', async () => {
    const [dana, erin] = [await signIn(service.baseUrl), await signIn(service.baseUrl)];
    const channelId = expectOk(
      await api.post(
        '/api/v1/channels',
        { name: 'live poll channel', is_public: true },
        bearer(alice),
      ),
    ).channel.id as string;
    for (const user of [dana, erin])
      expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(user)));
    const followers = [
      await connect(alice),
      await connect(dana),
      await connect(dana),
      await connect(erin),
    ];
    const outsider = await connect(stranger);
    const poll = expectOk(
      await create(alice, { question: 'Live?', options: ['a', 'b'], channel_id: channelId }),
    ).poll;
    expectOk(await vote(stranger, poll.id, [poll.options[1].id]));
    for (const socket of followers) {
      const frame = await socket.next('poll.updated', (event) => event.data.poll_id === poll.id);
      expect(frame).toMatchObject({
        channel_id: channelId,
        data: { poll_id: poll.id, total_votes: 1, options: [{ vote_count: 0 }, { vote_count: 1 }] },
      });
      expect(frame.seq).toBeUndefined();
    }
    await sleep(200);
    for (const socket of followers)
      expect(
        socket.ofType('poll.updated').filter((event) => event.data.poll_id === poll.id),
      ).toHaveLength(1);
    expect(
      outsider.ofType('poll.updated').filter((event) => event.data.poll_id === poll.id),
    ).toHaveLength(0);
  });
});

describe('gRPC and limits', () => {
  it('answers over native gRPC with the same codes', async () => {
    const client = pollsClient();
    try {
      const created = await unary(
        client,
        'CreatePoll',
        { question: 'gRPC?', options: ['x', 'y'], recipient_address: bob.user.address },
        metadataOf(alice),
      );
      expect(created.poll).toMatchObject({ question: 'gRPC?', total_votes: 0 });
      await expect(
        unary(client, 'GetPoll', { poll_id: created.poll.id }, metadataOf(stranger)),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      await expect(
        unary(
          client,
          'CreatePoll',
          { question: 'gRPC?', options: ['x'], recipient_address: bob.user.address },
          metadataOf(alice),
        ),
      ).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
      const voted = await unary(
        client,
        'VotePoll',
        { poll_id: created.poll.id, option_ids: [created.poll.options[1].id] },
        metadataOf(bob),
      );
      expect(voted.poll).toMatchObject({ has_voted: true, total_votes: 1 });
    } finally {
      client.close();
    }
  });

  describe('with rate limits on', () => {
    const limited = serviceForThisFile({ RATE_LIMITS_ENABLED: 'true' });
    it('limits poll reads to a burst of 5', async () => {
      const user = await signIn(limited.service.baseUrl);
      const replies: Reply[] = [];
      for (let i = 0; i < 6; i++)
        replies.push(await limited.api.get('/api/v1/polls/some-poll', bearer(user)));
      expect(replies.slice(0, 5).map((reply) => reply.status)).toEqual([404, 404, 404, 404, 404]);
      expect(replies[5]).toMatchObject({
        status: 429,
        body: { success: false, code: 'RATE_LIMIT_EXCEEDED', limit: 20, window: '60s' },
      });
    });
  });
});
