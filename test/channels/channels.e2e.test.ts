/**
 * Channels on the single process (role `all`): the role table, bad input, paging, the public
 * directory, the subscription cap, gRPC codes, and posts over real WebSocket clients, live and
 * caught up with `channels.resume`.
 */
import { bearerMetadata, grpc, grpcClient, unary } from '../support/grpc-client.js';
import type { GrpcServiceClient } from '../support/grpc-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import type { Reply } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
let owner: SignedIn;
let admin: SignedIn;
let subscriber: SignedIn;
let stranger: SignedIn;
const sockets: RealtimeClient[] = [];
let counter = 0;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const addressOf = (user: SignedIn) => user.user.address.toLowerCase();

beforeAll(async () => {
  [owner, admin, subscriber, stranger] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
});
afterAll(() => sockets.forEach((socket) => socket.close()));

async function createChannel(by: SignedIn, body: Record<string, unknown> = {}): Promise<string> {
  return expectOk(
    await api.post(
      '/api/v1/channels',
      { name: `news ${++counter}`, is_public: true, ...body },
      bearer(by),
    ),
  ).channel.id;
}
const publish = (by: SignedIn, channelId: string, text: string, id = `p-${++counter}`) =>
  api.post(
    `/api/v1/channels/${channelId}/posts`,
    { client_message_id: id, ciphertext: b64(text) },
    bearer(by),
  );
const subscribe = (by: SignedIn, channelId: string) =>
  api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(by));

/** A public channel with an admin and a subscriber. */
async function staffedChannel(): Promise<string> {
  const id = await createChannel(owner, { admin_addresses: [admin.user.address] });
  expectOk(await subscribe(subscriber, id));
  return id;
}

async function connect(user: SignedIn): Promise<RealtimeClient> {
  const socket = await RealtimeClient.connect(service.baseUrl, service.baseUrl, user.accessToken);
  sockets.push(socket);
  return socket;
}

describe('creating and reading', () => {
  it('creates a channel with admins and shows roles to each caller', async () => {
    const id = await staffedChannel();
    const seen = expectOk(await api.get(`/api/v1/channels/${id}`, bearer(admin)));
    expect(seen).toMatchObject({
      channel: {
        id,
        owner_address: addressOf(owner),
        my_role: 'admin',
        subscriber_count: 1,
        is_public: true,
        last_sequence: 0,
      },
      admin_addresses: [addressOf(admin)],
    });
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(stranger))).channel.my_role,
    ).toBe('');
    const legacy = await api.get(`/api/channels/${id}`, bearer(subscriber));
    expect(expectOk(legacy).channel.my_role).toBe('subscriber');
    expect(legacy.headers.get('deprecation')).toBe('true');
  });

  it('refuses bad input with the envelope', async () => {
    expectFailure(
      await api.post('/api/v1/channels', { name: '   ' }, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/channels', { name: 'x'.repeat(65) }, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/channels',
        { name: 'ok', description: 'd'.repeat(1025) },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/channels', { name: 'ok', admin_addresses: ['0x123'] }, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/channels',
        { name: 'ok', admin_addresses: [`0x${'ab'.repeat(20)}`] },
        bearer(owner),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.get('/api/v1/channels/no-such-channel', bearer(owner)),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.get(`/api/v1/channels/${'x'.repeat(300)}`, bearer(owner)),
      404,
      'NOT_FOUND',
    );
    expectFailure(await subscribe(owner, 'no-such-channel'), 404, 'NOT_FOUND');
    expectFailure(await publish(owner, 'no-such-channel', 'hi'), 404, 'NOT_FOUND');
    expectFailure(
      await api.get('/api/v1/channels?scope=everything', bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get(`/api/v1/channels?scope=public&query=${'q'.repeat(65)}`, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.get('/api/v1/channels/x/posts?cursor=nonsense', bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    const id = await createChannel(owner);
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: 'bad id!', ciphertext: b64('x') },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: 'ok', ciphertext: '' },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: 'ok', ciphertext: b64('x'), kind: 'poem' },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: 'ok', ciphertext: b64('x'), kind: 'image' },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: 'ok', ciphertext: Buffer.alloc(65_537).toString('base64') },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: 'ok', ciphertext: b64('x'), kind: 'voice', media_id: 'm1' },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        {
          client_message_id: 'ok',
          ciphertext: b64('x'),
          kind: 'image',
          media_id: 'no-such-upload',
        },
        bearer(owner),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        '/api/v1/channels',
        { name: 'ok', avatar_media_id: 'no-such-upload' },
        bearer(owner),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.call('PATCH', `/api/v1/channels/${id}`, { body: {}, headers: bearer(owner) }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.call('PATCH', `/api/v1/channels/${id}`, {
        body: { name: ' ' },
        headers: bearer(owner),
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.call('PATCH', `/api/v1/channels/${id}`, {
        body: { description: 'x', clear_description: true },
        headers: bearer(owner),
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.call('PATCH', '/api/v1/channels/unknown', {
        body: { name: 'x' },
        headers: bearer(owner),
      }),
      404,
      'NOT_FOUND',
    );
  });

  it('edits name and description, and clears the description', async () => {
    const id = await createChannel(owner, { description: 'first' });
    const edited = expectOk(
      await api.call('PATCH', `/api/v1/channels/${id}`, {
        body: { name: '  Renamed  ' },
        headers: bearer(owner),
      }),
    );
    expect(edited.channel).toMatchObject({ name: 'Renamed', description: 'first' });
    expectOk(
      await api.call('PATCH', `/api/v1/channels/${id}`, {
        body: { clear_description: true },
        headers: bearer(owner),
      }),
    );
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(stranger))).channel,
    ).toMatchObject({ name: 'Renamed', description: '' });
  });

  it('hides a private channel from non-members (404) but lets anyone with its id subscribe', async () => {
    const id = await createChannel(owner, { is_public: false });
    expectFailure(await api.get(`/api/v1/channels/${id}`, bearer(stranger)), 404, 'NOT_FOUND');
    expectFailure(
      await api.get(`/api/v1/channels/${id}/posts`, bearer(stranger)),
      404,
      'NOT_FOUND',
    );
    expectFailure(await publish(stranger, id, 'x'), 404, 'NOT_FOUND');
    const directory = expectOk(
      await api.get('/api/v1/channels?scope=public&page_size=200', bearer(stranger)),
    );
    expect(directory.channels.map((channel: { id: string }) => channel.id)).not.toContain(id);
    expect(expectOk(await subscribe(stranger, id)).channel.my_role).toBe('subscriber');
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(stranger))).channel.my_role,
    ).toBe('subscriber');
    expectOk(await api.post(`/api/v1/channels/${id}/unsubscribe`, {}, bearer(stranger)));
    expectFailure(await api.get(`/api/v1/channels/${id}`, bearer(stranger)), 404, 'NOT_FOUND');
  });
});

describe('the role table', () => {
  const cases: [string, (channelId: string, by: SignedIn) => Promise<Reply>][] = [
    ['publish', (id, by) => publish(by, id, 'post')],
    [
      'edit',
      (id, by) =>
        api.call('PATCH', `/api/v1/channels/${id}`, {
          body: { description: 'edited' },
          headers: bearer(by),
        }),
    ],
    [
      'add an admin',
      (id, by) =>
        api.post(`/api/v1/channels/${id}/admins/${stranger.user.address}`, {}, bearer(by)),
    ],
    [
      'remove an admin',
      (id, by) => api.delete(`/api/v1/channels/${id}/admins/${admin.user.address}`, bearer(by)),
    ],
    ['delete the channel', (id, by) => api.delete(`/api/v1/channels/${id}`, bearer(by))],
  ];
  const allowed: Record<string, string[]> = {
    owner: ['publish', 'edit', 'add an admin', 'remove an admin', 'delete the channel'],
    admin: ['publish', 'edit'],
    subscriber: [],
    stranger: [],
  };
  for (const [action, call] of cases) {
    for (const role of Object.keys(allowed)) {
      const expected = allowed[role]!.includes(action) ? 200 : 403;
      it(`${role} may ${action}: ${expected}`, async () => {
        const id = await staffedChannel();
        const by = { owner, admin, subscriber, stranger }[role]!;
        const reply = await call(id, by);
        if (expected === 200) expectOk(reply);
        else expectFailure(reply, 403, 'FORBIDDEN');
      });
    }
  }

  it('the owner cannot unsubscribe (403); an admin who unsubscribes gives up the role', async () => {
    const id = await staffedChannel();
    expectFailure(
      await api.post(`/api/v1/channels/${id}/unsubscribe`, {}, bearer(owner)),
      403,
      'FORBIDDEN',
    );
    expectOk(await api.post(`/api/v1/channels/${id}/unsubscribe`, {}, bearer(admin)));
    expectFailure(await publish(admin, id, 'no longer'), 403, 'FORBIDDEN');
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(owner))).admin_addresses,
    ).toEqual([]);
  });

  it('admins: promote a subscriber, demote back, refuse the owner and unknown users', async () => {
    const id = await staffedChannel();
    expect(
      expectOk(
        await api.post(
          `/api/v1/channels/${id}/admins/${subscriber.user.address}`,
          {},
          bearer(owner),
        ),
      ).admin_addresses,
    ).toEqual([addressOf(admin), addressOf(subscriber)].sort());
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(owner))).channel.subscriber_count,
    ).toBe(0);
    expectOk(await publish(subscriber, id, 'as admin'));
    expectOk(
      await api.delete(`/api/v1/channels/${id}/admins/${subscriber.user.address}`, bearer(owner)),
    );
    expectFailure(await publish(subscriber, id, 'demoted'), 403, 'FORBIDDEN');
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(owner))).channel.subscriber_count,
    ).toBe(1);
    expectFailure(
      await api.post(`/api/v1/channels/${id}/admins/${owner.user.address}`, {}, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(`/api/v1/channels/${id}/admins/0x12`, {}, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(`/api/v1/channels/${id}/admins/0x${'cd'.repeat(20)}`, {}, bearer(owner)),
      404,
      'NOT_FOUND',
    );
  });

  it('a deleted channel is gone with its posts', async () => {
    const id = await staffedChannel();
    expectOk(await publish(owner, id, 'soon gone'));
    expectOk(await api.delete(`/api/v1/channels/${id}`, bearer(owner)));
    expectFailure(await api.get(`/api/v1/channels/${id}`, bearer(owner)), 404, 'NOT_FOUND');
    expectFailure(
      await api.get(`/api/v1/channels/${id}/posts`, bearer(subscriber)),
      404,
      'NOT_FOUND',
    );
  });
});

describe('posts', () => {
  it('numbers posts per channel, is idempotent, and pages newest first with cursors', async () => {
    const id = await staffedChannel();
    const first = expectOk(await publish(owner, id, 'one', 'same-key'));
    expect(first).toMatchObject({
      duplicate: false,
      chat_message: {
        sequence: 1,
        channel_id: id,
        conversation_id: `channel:${id}`,
        sender_address: addressOf(owner),
        kind: 'text',
      },
    });
    expect(expectOk(await publish(owner, id, 'one', 'same-key'))).toMatchObject({
      duplicate: true,
      chat_message: { id: first.chat_message.id },
    });
    expectFailure(await publish(owner, id, 'another body', 'same-key'), 409, 'CONFLICT');
    for (const text of ['two', 'three', 'four', 'five']) expectOk(await publish(admin, id, text));
    const page1 = expectOk(
      await api.get(`/api/v1/channels/${id}/posts?page_size=3`, bearer(subscriber)),
    );
    expect(page1.posts.map((post: { sequence: number }) => post.sequence)).toEqual([5, 4, 3]);
    const page2 = expectOk(
      await api.get(
        `/api/v1/channels/${id}/posts?page_size=3&cursor=${page1.next_cursor}`,
        bearer(stranger),
      ),
    );
    expect(page2.posts.map((post: { sequence: number }) => post.sequence)).toEqual([2, 1]);
    expect(page2.next_cursor).toBe('');
    expect(
      expectOk(await api.get(`/api/v1/channels/${id}`, bearer(owner))).channel.last_sequence,
    ).toBe(5);
  });

  it('lists my channels and searches the public directory', async () => {
    const name = `Zebra findings ${Date.now()}`;
    const id = await createChannel(stranger, { name });
    const found = expectOk(
      await api.get(
        `/api/v1/channels?scope=public&query=${encodeURIComponent('ZEBRA FIND')}`,
        bearer(owner),
      ),
    );
    expect(found.channels.map((channel: { id: string }) => channel.id)).toEqual([id]);
    const mine = expectOk(await api.get('/api/v1/channels', bearer(stranger)));
    expect(
      mine.channels.map((channel: { id: string; my_role: string }) => [
        channel.id,
        channel.my_role,
      ]),
    ).toContainEqual([id, 'owner']);
  });
});

describe('live delivery and catch-up over /ws', () => {
  it('a subscriber receives posts live, once, and catches up exactly after reconnecting', async () => {
    const id = await staffedChannel();
    const live = await connect(subscriber);
    expectOk(await publish(owner, id, 'live 1'));
    const frame = await live.next('channel.post');
    expect(frame).toMatchObject({
      channel_id: id,
      sequence: 1,
      data: { post: { sequence: 1, ciphertext: b64('live 1'), channel_id: id } },
    });
    live.close();
    for (const text of ['missed 2', 'missed 3', 'missed 4'])
      expectOk(await publish(admin, id, text));
    const back = await connect(subscriber);
    expectOk(await publish(owner, id, 'live 5'));
    await back.next('channel.post', (post) => post.sequence === 5);
    expect((await back.request({ type: 'channels.resume', positions: { [id]: 1 } })).type).toBe(
      'ack',
    );
    const sequences = back
      .ofType('channel.post')
      .filter((post) => post.channel_id === id)
      .map((post) => post.sequence);
    expect(sequences.sort()).toEqual([2, 3, 4, 5]);
    expect(new Set(sequences).size).toBe(sequences.length);
  });

  it('follows subscriptions made while connected, and stops after unsubscribing', async () => {
    const id = await createChannel(owner);
    const socket = await connect(stranger);
    expectOk(await subscribe(stranger, id));
    await waitFor(async () => {
      expectOk(await publish(owner, id, 'probe'));
      return socket.ofType('channel.post').some((post) => post.channel_id === id);
    });
    expectOk(await api.post(`/api/v1/channels/${id}/unsubscribe`, {}, bearer(stranger)));
    const before = socket.ofType('channel.post').length;
    expectOk(await publish(owner, id, 'after leaving'));
    const other = await connect(owner);
    expectOk(await publish(owner, id, 'marker'));
    await other.next('channel.post', (post) => post.channel_id === id);
    expect(socket.ofType('channel.post').length).toBe(before);
  });

  it('a resume from the future or over an unknown gap says channel.resync_required; bad positions are refused', async () => {
    const id = await staffedChannel();
    expectOk(await publish(owner, id, 'only'));
    const socket = await connect(subscriber);
    expect((await socket.request({ type: 'channels.resume', positions: { [id]: 9 } })).type).toBe(
      'ack',
    );
    expect(await socket.next('channel.resync_required')).toMatchObject({
      channel_id: id,
      sequence: 1,
    });
    expect(await socket.request({ type: 'channels.resume', positions: [1] })).toMatchObject({
      type: 'error',
      code: 'INVALID_ARGUMENT',
    });
    expect(
      await socket.request({ type: 'channels.resume', positions: { [id]: -1 } }),
    ).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT' });
  });
});

describe('limits and gRPC', () => {
  it('answers PERMISSION_DENIED and NOT_FOUND over native gRPC', async () => {
    const client: GrpcServiceClient = grpcClient(
      service.grpcAddress,
      'service/v1/channels.proto',
      'service.v1.ChannelsService',
    );
    const metadataOf = (user: SignedIn) => bearerMetadata(user.accessToken);
    try {
      const id = await staffedChannel();
      const request = {
        channel_id: id,
        client_message_id: `g-${++counter}`,
        ciphertext: Buffer.from('x'),
      };
      await expect(
        unary(client, 'PublishChannelPost', request, metadataOf(subscriber)),
      ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
      await expect(
        unary(client, 'GetChannel', { channel_id: 'unknown' }, metadataOf(subscriber)),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      const published = await unary(client, 'PublishChannelPost', request, metadataOf(owner));
      expect(published).toMatchObject({
        success: true,
        chat_message: { sequence: 1, channel_id: id },
      });
    } finally {
      client.close();
    }
  });
});

describe('the subscription cap', () => {
  const capped = serviceForThisFile({
    CHANNEL_MAX_SUBSCRIPTIONS: '3',
    RATE_LIMITS_ENABLED: 'false',
  });

  it('refuses following more than CHANNEL_MAX_SUBSCRIPTIONS channels (owned ones count) with 409 SUBSCRIPTION_LIMIT', async () => {
    const [creator, reader] = await Promise.all([
      signIn(capped.service.baseUrl),
      signIn(capped.service.baseUrl),
    ]);
    const create = async (by: SignedIn) =>
      expectOk(
        await capped.api.post('/api/v1/channels', { name: 'capped', is_public: true }, bearer(by)),
      ).channel.id as string;
    const ids = [await create(creator), await create(creator), await create(creator)];
    expectFailure(
      await capped.api.post('/api/v1/channels', { name: 'one too many' }, bearer(creator)),
      409,
      'SUBSCRIPTION_LIMIT',
    );
    const own = await create(reader);
    expectOk(await capped.api.post(`/api/v1/channels/${ids[0]}/subscribe`, {}, bearer(reader)));
    expectOk(await capped.api.post(`/api/v1/channels/${ids[1]}/subscribe`, {}, bearer(reader)));
    expectFailure(
      await capped.api.post(`/api/v1/channels/${ids[2]}/subscribe`, {}, bearer(reader)),
      409,
      'SUBSCRIPTION_LIMIT',
    );
    expectOk(await capped.api.post(`/api/v1/channels/${ids[0]}/subscribe`, {}, bearer(reader)));
    expectOk(await capped.api.post(`/api/v1/channels/${ids[0]}/unsubscribe`, {}, bearer(reader)));
    expectOk(await capped.api.post(`/api/v1/channels/${ids[2]}/subscribe`, {}, bearer(reader)));
    expect(own).toBeTruthy();
  });
});

async function waitFor(check: () => Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
