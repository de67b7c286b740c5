/**
 * Changes to channel posts as durable events, end to end over real HTTP, a native gRPC client
 * and real WebSocket clients: a follower that was offline while posts it already had were
 * edited (over gRPC), deleted, reacted to and pinned and unpinned gets, from `channels.resume`
 * with its `change_positions`, each of those changes once, in change-number order, after the
 * posts it missed; a deleted post's ciphertext comes back through no frame; reaction changes
 * of a post are logged as one change with its latest counts. A follower further behind than
 * the changes kept (CHANNEL_REPLAY_POSTS, 10 here) is told `channel.resync_required` with the
 * change number to go on from, and reads the current posts over REST.
 */
import { bearerMetadata, grpcClient, unary } from '../support/grpc-client.js';
import type { Json } from '../support/json.js';
import { RealtimeClient } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectOk } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { RelationCalls, b64, newClientId, text } from '../messaging/relations-support.js';
import type { Where } from '../messaging/relations-support.js';

const KEPT = 10;
const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'false',
  CHANNEL_REPLAY_POSTS: String(KEPT),
});
const calls = new RelationCalls(() => api);

let owner: SignedIn;
let reader: SignedIn;
let watcher: SignedIn;
let fans: SignedIn[];

const connect = (session: SignedIn) =>
  RealtimeClient.connect(service.baseUrl, service.baseUrl, session.accessToken);
const changesOf = (socket: RealtimeClient) => socket.ofType('channel.post_updated');
const changeNumbers = (socket: RealtimeClient) =>
  changesOf(socket).map((frame) => frame.change_sequence as number);

beforeAll(async () => {
  [owner, reader, watcher, ...fans] = (await Promise.all(
    Array.from({ length: 6 }, () => signIn(service.baseUrl)),
  )) as [SignedIn, SignedIn, SignedIn, ...SignedIn[]];
});

/** A new channel with `reader` and `watcher` subscribed. */
async function newChannel(): Promise<{ channelId: string; channel: Where }> {
  const channelId = expectOk(
    await api.post('/api/v1/channels', { name: 'Changes', is_public: true }, bearer(owner)),
  ).channel.id as string;
  for (const follower of [reader, watcher])
    expectOk(await api.post(`/api/v1/channels/${channelId}/subscribe`, {}, bearer(follower)));
  return { channelId, channel: { channel_id: channelId } };
}

const publish = async (channelId: string, body: string) =>
  expectOk(
    await api.post(
      `/api/v1/channels/${channelId}/posts`,
      { client_message_id: newClientId(), ciphertext: b64(body) },
      bearer(owner),
    ),
  ).chat_message;

/** The native gRPC edit of a post. */
async function editOverGrpc(channelId: string, postId: string, body: string): Promise<Json> {
  const client = grpcClient(
    service.grpcAddress,
    'service/v1/messages.proto',
    'service.v1.MessagesService',
  );
  try {
    return await unary<Json>(
      client,
      'EditMessage',
      { channel_id: channelId, message_id: postId, ciphertext: Buffer.from(body) },
      bearerMetadata(owner.accessToken),
    );
  } finally {
    client.close();
  }
}

it('an offline follower catches up on edits, deletions, reaction counts and pins of posts it had, once each and in order', async () => {
  const { channelId, channel } = await newChannel();
  const [kept, secret, liked] = [
    await publish(channelId, 'typo'),
    await publish(channelId, 'CHANNEL-SECRET'),
    await publish(channelId, 'like me'),
  ];
  // Online, the reader gets the posts and a first change, which fixes its change position.
  const online = await connect(reader);
  const watching = await connect(watcher);
  expectOk(await calls.pin(owner, channel, kept.id));
  const first = await online.next('channel.post_updated');
  expect(first).toMatchObject({ channel_id: channelId, data: { change: 'pinned' } });
  const heldPosition = { post: liked.sequence as number, change: first.change_sequence as number };
  online.close();

  // Offline: an edit over gRPC, a deletion, reactions from three readers, a pin and an unpin.
  const edited = await editOverGrpc(channelId, kept.id, 'fixed');
  expect(text(edited.chat_message.ciphertext)).toBe('fixed');
  expectOk(await calls.deleteForEveryone(owner, channel, secret.id));
  for (const fan of fans) expectOk(await calls.react(fan, channel, liked.id, { key: '👍' }));
  expectOk(await calls.react(fans[0]!, channel, liked.id, { key: '🔥' }));
  // The counts are logged by the sweeper, before the pin that follows.
  await watching.next(
    'channel.post_updated',
    (frame) =>
      frame.data.change === 'reactions' &&
      frame.data.post.reaction_counts.length === 2 &&
      frame.data.post.reaction_counts[0].count === fans.length,
    10_000,
  );
  expectOk(await calls.pin(owner, channel, liked.id));
  expectOk(await calls.unpin(owner, channel, kept.id));
  const later = await publish(channelId, 'later');
  await watching.next('channel.post_updated', (frame) => frame.data.change === 'unpinned');

  const back = await connect(reader);
  try {
    const answer = await back.request({
      type: 'channels.resume',
      positions: { [channelId]: heldPosition.post },
      change_positions: { [channelId]: heldPosition.change },
    });
    expect(answer.type).toBe('ack');
    expect(back.ofType('channel.post').map((frame) => frame.data.post.id)).toEqual([later.id]);
    const replayed = changesOf(back);
    // Reactions gather per post for a second before they are logged: on a slow machine the five
    // may span two sweeps, never five.
    const reactionEntries = replayed.filter((frame) => frame.data.change === 'reactions');
    expect(reactionEntries.length).toBeGreaterThanOrEqual(1);
    expect(reactionEntries.length).toBeLessThan(fans.length + 1);
    expect(
      replayed
        .filter((frame) => frame !== reactionEntries[0])
        .map((frame) => [frame.data.change, frame.data.post.id]),
    ).toEqual([
      ['edited', kept.id],
      ['deleted', secret.id],
      ...reactionEntries.slice(1).map(() => ['reactions', liked.id]),
      ['pinned', liked.id],
      ['unpinned', kept.id],
    ]);
    expect(replayed[2]).toBe(reactionEntries[0]);
    // Each change once, numbered on from the position held, and as the live follower heard them.
    expect(changeNumbers(back)).toEqual(replayed.map((_, i) => heldPosition.change + 1 + i));
    expect(changeNumbers(watching).filter((n) => n > heldPosition.change)).toEqual(
      changeNumbers(back),
    );
    const [edit, deletion] = replayed as [Frame, Frame];
    const [pin, unpin] = replayed.slice(-2) as [Frame, Frame];
    expect(text(edit.data.post.ciphertext)).toBe('fixed');
    expect(edit.data.post.edit_count).toBe(1);
    expect(deletion.data.post).toMatchObject({ ciphertext: '', deleted_by: 'sender' });
    expect(JSON.stringify(back.frames)).not.toContain(b64('CHANNEL-SECRET'));
    expect(JSON.stringify(watching.frames)).not.toContain(b64('CHANNEL-SECRET'));
    expect(reactionEntries.at(-1)!.data.post.reaction_counts).toEqual([
      { key: '👍', count: fans.length },
      { key: '🔥', count: 1 },
    ]);
    expect(reactionEntries.at(-1)!.data.post.my_reaction_keys).toEqual([]);
    expect(pin.data.post.pinned).toBe(true);
    expect(unpin.data.post.pinned).toBe(false);
    // Asking again on the same connection replays nothing more.
    await back.request({
      type: 'channels.resume',
      positions: { [channelId]: 0 },
      change_positions: { [channelId]: 0 },
    });
    expect(changesOf(back)).toHaveLength(replayed.length);
    expect(back.ofType('channel.post')).toHaveLength(1);
  } finally {
    back.close();
    watching.close();
  }
});

it('a follower further behind than the kept changes is told to resync, then reads the current posts', async () => {
  const { channelId, channel } = await newChannel();
  const post = await publish(channelId, 'v0');
  for (let edit = 1; edit <= KEPT + 2; edit++)
    expectOk(await calls.edit(owner, channel, post.id, `v${edit}`));
  const behind = await connect(reader);
  try {
    const answer = await behind.request({
      type: 'channels.resume',
      positions: { [channelId]: post.sequence },
      change_positions: { [channelId]: 0 },
    });
    expect(answer.type).toBe('ack');
    expect(changesOf(behind)).toEqual([]);
    expect(behind.ofType('channel.resync_required')).toEqual([
      { type: 'channel.resync_required', channel_id: channelId, change_sequence: KEPT + 2 },
    ]);
    const current = (await calls.byId(reader, channel)).get(post.id)!;
    expect({ text: text(current.ciphertext), edits: current.edit_count }).toEqual({
      text: `v${KEPT + 2}`,
      edits: KEPT + 2,
    });
    // From the position the resync named, the next change comes live, and nothing else.
    expectOk(await calls.pin(owner, channel, post.id));
    const next = await behind.next('channel.post_updated');
    expect(next.change_sequence).toBe(KEPT + 3);
  } finally {
    behind.close();
  }
});

it('refuses malformed change positions with the documented error, and the connection stays open', async () => {
  const socket = await connect(reader);
  try {
    for (const change_positions of [[], { x: -1 }, { x: 1.5 }, { 'bad id!': 1 }, 'x']) {
      const answer = await socket.request({
        type: 'channels.resume',
        positions: {},
        change_positions,
      });
      expect(answer).toMatchObject({ type: 'error', code: 'INVALID_ARGUMENT' });
    }
    expect((await socket.request({ type: 'ping' })).type).toBe('pong');
  } finally {
    socket.close();
  }
});
