/**
 * Relations on channel posts, end to end over real HTTP, a native gRPC client and real
 * WebSocket clients: edits and deletions (by the author, by an admin) reach connected followers
 * as `channel.post_updated`, and the post kept for `/ws` catch-up is rewritten, so a reader
 * resuming from before it never gets a deleted post's ciphertext; plaintext reaction keys are
 * counted on the post (at most 3 distinct keys per reader), pins are for owners and admins,
 * replies name posts of the channel, mentions name followers and count as unread mentions.
 * Every refusal answers its documented status and code.
 */
import { bearerMetadata, grpcClient, unary } from '../support/grpc-client.js';
import type { Json } from '../support/json.js';
import { RealtimeClient } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import {
  RelationCalls,
  addressOf,
  b64,
  newClientId,
  text,
} from '../messaging/relations-support.js';
import type { Where } from '../messaging/relations-support.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const calls = new RelationCalls(() => api);

let owner: SignedIn;
let admin: SignedIn;
let reader: SignedIn;
let other: SignedIn;
let stranger: SignedIn;
let channelId: string;
let channel: Where;
let readerDevice: RealtimeClient;

const connect = (session: SignedIn) =>
  RealtimeClient.connect(service.baseUrl, service.baseUrl, session.accessToken);
const updated = (postId: string, change: string) => (frame: Frame) =>
  frame.data?.post?.id === postId && frame.data?.change === change;

beforeAll(async () => {
  [owner, admin, reader, other, stranger] = (await Promise.all(
    Array.from({ length: 5 }, () => signIn(service.baseUrl)),
  )) as [SignedIn, SignedIn, SignedIn, SignedIn, SignedIn];
  channelId = expectOk(
    await api.post(
      '/api/v1/channels',
      { name: 'News', is_public: true, admin_addresses: [admin.user.address] },
      bearer(owner),
    ),
  ).channel.id;
  channel = { channel_id: channelId };
  for (const follower of [reader, other])
    expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(follower)));
  readerDevice = await connect(reader);
});
afterAll(() => readerDevice.close());

const publish = async (by: SignedIn, body: string, extra: Record<string, unknown> = {}) =>
  expectOk(
    await api.post(
      `/api/v1/channels/${channelId}/posts`,
      { client_message_id: newClientId(), ciphertext: b64(body), ...extra },
      bearer(by),
    ),
  ).chat_message;

it('the author edits its post: followers hear it live, history and catch-up show the new text', async () => {
  const post = await publish(owner, 'typo');
  await readerDevice.next('channel.post', (frame) => frame.data.post.id === post.id);
  expectFailure(await calls.edit(admin, channel, post.id, 'x'), 403, 'FORBIDDEN');
  expectFailure(await calls.edit(reader, channel, post.id, 'x'), 403, 'FORBIDDEN');
  const edited = expectOk(await calls.edit(owner, channel, post.id, 'fixed')).chat_message;
  expect(edited).toMatchObject({ id: post.id, sequence: post.sequence, edit_count: 1 });
  const frame = await readerDevice.next('channel.post_updated', updated(post.id, 'edited'));
  expect(frame.channel_id).toBe(channelId);
  expect(text(frame.data.post.ciphertext)).toBe('fixed');
  expect(text((await calls.byId(reader, channel)).get(post.id)!.ciphertext)).toBe('fixed');
  const resumed = await connect(other);
  try {
    const answer = await resumed.request({
      type: 'channels.resume',
      positions: { [channelId]: post.sequence - 1 },
    });
    expect(answer.type).toBe('ack');
    const replayed = resumed.ofType('channel.post').find((f) => f.data.post.id === post.id)!;
    expect(text(replayed.data.post.ciphertext)).toBe('fixed');
  } finally {
    resumed.close();
  }
});

it('reaction keys are counted on the post, at most 3 distinct per reader, and read with it', async () => {
  const post = await publish(admin, 'react');
  const react = (who: SignedIn, key: string) => calls.react(who, channel, post.id, { key });
  expectOk(await react(reader, '👍'));
  expectOk(await react(reader, '👍'));
  expectOk(await react(reader, '❤️'));
  const third = expectOk(await react(reader, '🇫🇷')).chat_message;
  expect(third.my_reaction_keys).toEqual(['👍', '❤️', '🇫🇷']);
  expectFailure(await react(reader, '🎉'), 409, 'REACTION_LIMIT');
  expectOk(await react(other, '👍'));
  expectOk(await react(stranger, '👍')); // a public channel: any reader
  const live = await readerDevice.next(
    'channel.post_updated',
    (frame) =>
      updated(post.id, 'reactions')(frame) && frame.data.post.reaction_counts[0]?.count === 3,
  );
  expect(live.data.post.my_reaction_keys).toEqual([]);
  const seen = (await calls.byId(other, channel)).get(post.id)!;
  expect(seen.reaction_counts).toEqual([
    { key: '👍', count: 3 },
    { key: '❤️', count: 1 },
    { key: '🇫🇷', count: 1 },
  ]);
  expect(seen.my_reaction_keys).toEqual(['👍']);
  expectOk(await calls.unreact(reader, channel, post.id, '❤️'));
  expectOk(await calls.unreact(reader, channel, post.id, '❤️'));
  expectOk(await react(reader, '🎉'));
  const after = (await calls.byId(reader, channel)).get(post.id)!;
  expect(after.my_reaction_keys).toEqual(['👍', '🇫🇷', '🎉']);
  expect(after.reaction_counts).toEqual([
    { key: '👍', count: 3 },
    { key: '🇫🇷', count: 1 },
    { key: '🎉', count: 1 },
  ]);
  for (const bad of ['', 'abc', '👍👍', ' 👍', 'x'.repeat(40)])
    expectFailure(await react(reader, bad), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await calls.react(reader, channel, post.id, { ciphertext: b64('x') }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await calls.unreact(reader, channel, post.id), 400, 'INVALID_ARGUMENT');
});

it('over native gRPC: a reaction key on a post', async () => {
  const post = await publish(owner, 'grpc');
  const client = grpcClient(
    service.grpcAddress,
    'service/v1/messages.proto',
    'service.v1.MessagesService',
  );
  try {
    const reply = await unary<Json>(
      client,
      'ReactToMessage',
      { channel_id: channelId, message_id: post.id, key: '🔥' },
      bearerMetadata(other.accessToken),
    );
    expect(reply.chat_message.reaction_counts).toEqual([{ key: '🔥', count: 1 }]);
  } finally {
    client.close();
  }
});

it('admin delete: the post becomes a tombstone everywhere, catch-up included; its reactions go', async () => {
  const post = await publish(owner, 'CHANNEL-SECRET', { mentions: [reader.user.address] });
  expectOk(await calls.react(reader, channel, post.id, { key: '👍' }));
  expectFailure(await calls.deleteForEveryone(reader, channel, post.id), 403, 'FORBIDDEN');
  const tombstone = expectOk(await calls.deleteForEveryone(admin, channel, post.id)).chat_message;
  expect(tombstone).toMatchObject({ ciphertext: '', deleted_by: 'admin', reaction_counts: [] });
  const frame = await readerDevice.next('channel.post_updated', updated(post.id, 'deleted'));
  expect(frame.data.post.ciphertext).toBe('');
  expect((await calls.byId(other, channel)).get(post.id)).toMatchObject({
    ciphertext: '',
    deleted_by: 'admin',
    my_reaction_keys: [],
  });
  expectFailure(await calls.react(other, channel, post.id, { key: '👍' }), 410, 'GONE');
  expectFailure(await calls.edit(owner, channel, post.id, 'x'), 410, 'GONE');
  const resumed = await connect(other);
  try {
    await resumed.request({
      type: 'channels.resume',
      positions: { [channelId]: post.sequence - 1 },
    });
    expect(JSON.stringify(resumed.frames)).not.toContain(b64('CHANNEL-SECRET'));
    expect(
      resumed.ofType('channel.post').find((f) => f.data.post.id === post.id)!.data.post,
    ).toMatchObject({ ciphertext: '', deleted_by: 'admin' });
  } finally {
    resumed.close();
  }
  expectFailure(await calls.deleteForMe(reader, channel, post.id), 404, 'NOT_FOUND');
});

it('pins: owner and admins only, listed in pin order; deleted posts leave the list', async () => {
  const first = await publish(owner, 'first');
  const second = await publish(admin, 'second');
  expectFailure(await calls.pin(reader, channel, first.id), 403, 'FORBIDDEN');
  expectOk(await calls.pin(admin, channel, second.id));
  expectOk(await calls.pin(owner, channel, first.id));
  await readerDevice.next('channel.post_updated', updated(first.id, 'pinned'));
  const listed = expectOk(await calls.pinned(reader, channel)).messages as Json[];
  expect(listed.map((post) => [post.id, post.pinned])).toEqual([
    [second.id, true],
    [first.id, true],
  ]);
  expect((await calls.byId(reader, channel)).get(first.id)!.pinned).toBe(true);
  expectOk(await calls.deleteForEveryone(admin, channel, second.id));
  expect(
    (expectOk(await calls.pinned(reader, channel)).messages as Json[]).map((p) => p.id),
  ).toEqual([first.id]);
  expectOk(await calls.unpin(admin, channel, first.id));
  expect(expectOk(await calls.pinned(reader, channel)).messages).toEqual([]);
});

it('replies and mentions: posts of this channel, followers; unread mentions in the chat list', async () => {
  const first = await publish(owner, 'announcement');
  const reply = await publish(admin, 'details', { reply_to_message_id: first.id });
  expect(reply.reply_to_message_id).toBe(first.id);
  const viaSend = expectOk(
    await calls.send(owner, channel, 'more', { reply_to_message_id: first.id }),
  ).chat_message;
  expect(viaSend.reply_to_message_id).toBe(first.id);
  const elsewhere = await calls.sent(owner, { peer_address: reader.user.address }, 'dm');
  expectFailure(
    await calls.send(owner, channel, 'x', { reply_to_message_id: elsewhere.id }),
    404,
    'NOT_FOUND',
  );
  expectFailure(
    await calls.send(owner, channel, 'x', { mentions: [stranger.user.address] }),
    404,
    'NOT_FOUND',
  );
  const chatOf = async (session: SignedIn) =>
    (expectOk(await api.get('/api/v1/chats', bearer(session))).chats as Json[]).find(
      (chat) => chat.channel_id === channelId,
    )!;
  const latest = await publish(owner, 'mark');
  expectOk(
    await api.post(
      '/api/v1/mark-as-read',
      { ...channel, up_to_message_id: latest.id },
      bearer(other),
    ),
  );
  await publish(owner, 'hi', { mentions: [other.user.address] });
  await publish(admin, 'all', { mentions: ['@everyone'] });
  expect((await chatOf(other)).unread_mention_count).toBe(2);
  const last = await publish(owner, 'end');
  expectOk(
    await api.post(
      '/api/v1/mark-as-read',
      { ...channel, up_to_message_id: last.id },
      bearer(other),
    ),
  );
  expect((await chatOf(other)).unread_mention_count).toBe(0);
  expect(addressOf(other)).toMatch(/^0x/);
});

it('a private channel is unknown to a stranger for every relation route (404)', async () => {
  const hidden = expectOk(
    await api.post('/api/v1/channels', { name: 'Hidden', is_public: false }, bearer(owner)),
  ).channel.id;
  const post = expectOk(
    await api.post(
      `/api/v1/channels/${hidden}/posts`,
      { client_message_id: newClientId(), ciphertext: b64('x') },
      bearer(owner),
    ),
  ).chat_message;
  const where = { channel_id: hidden };
  expectFailure(await calls.react(stranger, where, post.id, { key: '👍' }), 404, 'NOT_FOUND');
  expectFailure(await calls.pin(stranger, where, post.id), 404, 'NOT_FOUND');
  expectFailure(await calls.deleteForEveryone(stranger, where, post.id), 404, 'NOT_FOUND');
  expectFailure(await calls.pinned(stranger, where), 404, 'NOT_FOUND');
  expectFailure(await calls.react(owner, channel, post.id, { key: '👍' }), 404, 'NOT_FOUND');
});
