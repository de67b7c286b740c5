/**
 * Relations in a direct chat, end to end over real HTTP, a native gRPC client and real
 * WebSocket clients: edit, delete for everyone, delete for me, encrypted reactions (add,
 * replace, remove), replies and pins reach the other participant's device and the actor's
 * other device live as durable events, a reconnecting device replays exactly what it missed,
 * replay never hands back a deleted message's ciphertext, and history shows the current state
 * to a client that replays nothing. Every refusal answers its documented status and code. The
 * last test reads the store itself after the service stopped: the deleted message's
 * ciphertext and media reference are gone for good.
 */
import { MediaItems } from '../../src/media/media-items.js';
import { MESSAGES } from '../../src/messaging/messages/stored-message.js';
import type { StoredMessage } from '../../src/messaging/messages/stored-message.js';
import { bearerMetadata, grpc, grpcClient, unary } from '../support/grpc-client.js';
import type { Json } from '../support/json.js';
import { passesEventually } from '../support/passes-eventually.js';
import { RealtimeClient } from '../support/realtime-client.js';
import type { Frame } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { expectFailure, expectOk, signInAgain } from '../support/session-api.js';
import { stopAndReadStore } from '../support/signin-store.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { RelationCalls, addressOf, b64, newClientId, text } from './relations-support.js';
import type { Where } from './relations-support.js';

const { service, api } = serviceForThisFile({
  RATE_LIMITS_ENABLED: 'false',
  MEDIA_SWEEP_INTERVAL: '1s',
});
const calls = new RelationCalls(() => api);

let alice: SignedIn;
let aliceOther: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
/** Alice's two devices and Bob's device. */
let a1: RealtimeClient;
let a2: RealtimeClient;
let b1: RealtimeClient;
let withBob: Where;
let withAlice: Where;

const connect = (session: SignedIn, resume?: { stream: string; seq: number }) =>
  RealtimeClient.connect(service.baseUrl, service.baseUrl, session.accessToken, resume);
const about = (messageId: string) => (frame: Frame) =>
  (frame.data?.message?.id ?? frame.data?.message_id) === messageId;

beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
  aliceOther = await signInAgain(service.baseUrl, alice.user);
  [a1, a2, b1] = await Promise.all([connect(alice), connect(aliceOther), connect(bob)]);
  withBob = { peer_address: bob.user.address };
  withAlice = { peer_address: alice.user.address };
});
afterAll(() => [a1, a2, b1].forEach((client) => client.close()));

describe('edits', () => {
  it('the sender edits: both sides live, history current, the id and number kept', async () => {
    const sent = await calls.sent(alice, withBob, 'helo');
    const edited = expectOk(await calls.edit(alice, withBob, sent.id, 'hello')).chat_message;
    expect(edited).toMatchObject({ id: sent.id, sequence: sent.sequence, edit_count: 1 });
    expect(text(edited.ciphertext)).toBe('hello');
    expect(Date.parse(edited.edited_at)).toBeGreaterThanOrEqual(Date.parse(sent.sent_at));
    for (const device of [b1, a2]) {
      const frame = await device.next('message.edited', about(sent.id));
      expect(frame.seq).toEqual(expect.any(Number));
      expect(text(frame.data.message.ciphertext)).toBe('hello');
      expect(frame.data.message.edit_count).toBe(1);
    }
    const seen = (await calls.byId(bob, withAlice)).get(sent.id)!;
    expect(seen).toMatchObject({ edit_count: 1, sequence: sent.sequence });
    expect(text(seen.ciphertext)).toBe('hello');
  });

  it('refuses: not the sender 403, unknown 404, another conversation 404, view-once 400, deleted 410, empty 400', async () => {
    const sent = await calls.sent(alice, withBob, 'mine');
    expectFailure(await calls.edit(bob, withAlice, sent.id, 'x'), 403, 'FORBIDDEN');
    expectFailure(await calls.edit(alice, withBob, 'A'.repeat(22), 'x'), 404, 'NOT_FOUND');
    expectFailure(await calls.edit(alice, withBob, 'x'.repeat(300), 'x'), 404, 'NOT_FOUND');
    const elsewhere = await calls.sent(alice, { peer_address: carol.user.address }, 'to carol');
    expectFailure(await calls.edit(alice, withBob, elsewhere.id, 'x'), 404, 'NOT_FOUND');
    expectFailure(await calls.edit(bob, withAlice, elsewhere.id, 'x'), 404, 'NOT_FOUND');
    const once = await calls.sent(alice, withBob, 'once', { view_once: true });
    expectFailure(await calls.edit(alice, withBob, once.id, 'x'), 400, 'INVALID_ARGUMENT');
    expectFailure(await calls.edit(alice, withBob, sent.id, ''), 400, 'INVALID_ARGUMENT');
    expectOk(await calls.deleteForEveryone(alice, withBob, sent.id));
    expectFailure(await calls.edit(alice, withBob, sent.id, 'x'), 410, 'GONE');
    expectFailure(
      await api.post(
        '/api/v1/messages/edit',
        { message_id: sent.id, ciphertext: b64('x') },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('over native gRPC: EditMessage, and PERMISSION_DENIED with its reason for another sender', async () => {
    const client = grpcClient(
      service.grpcAddress,
      'service/v1/messages.proto',
      'service.v1.MessagesService',
    );
    try {
      const sent = await calls.sent(alice, withBob, 'grpc');
      const reply = await unary<Json>(
        client,
        'EditMessage',
        { peer_address: bob.user.address, message_id: sent.id, ciphertext: Buffer.from('grpc!') },
        bearerMetadata(alice.accessToken),
      );
      expect(reply.chat_message.edit_count).toBe(1);
      expect(Buffer.from(reply.chat_message.ciphertext).toString()).toBe('grpc!');
      const refused = await unary(
        client,
        'EditMessage',
        { peer_address: alice.user.address, message_id: sent.id, ciphertext: Buffer.from('no') },
        bearerMetadata(bob.accessToken),
      ).catch((error: grpc.ServiceError) => error);
      expect((refused as grpc.ServiceError).code).toBe(grpc.status.PERMISSION_DENIED);
      expect((refused as grpc.ServiceError).metadata.get('x-error-code')).toEqual(['FORBIDDEN']);
      await b1.next('message.edited', about(sent.id));
    } finally {
      client.close();
    }
  });
});

describe('replies', () => {
  it('a reply names its target; history returns it; a deleted target may be replied to', async () => {
    const first = await calls.sent(alice, withBob, 'question');
    const reply = await calls.sent(bob, withAlice, 'answer', { reply_to_message_id: first.id });
    expect(reply.reply_to_message_id).toBe(first.id);
    const frame = await a1.next('message.new', about(reply.id));
    expect(frame.data.message.reply_to_message_id).toBe(first.id);
    expect((await calls.byId(alice, withBob)).get(reply.id)!.reply_to_message_id).toBe(first.id);
    expectOk(await calls.deleteForEveryone(alice, withBob, first.id));
    const late = await calls.sent(bob, withAlice, 'late', { reply_to_message_id: first.id });
    expect(late.reply_to_message_id).toBe(first.id);
  });

  it('refuses a reply to an unknown message or one of another conversation (404), mentions in a direct chat (400)', async () => {
    const elsewhere = await calls.sent(alice, { peer_address: carol.user.address }, 'carol');
    expectFailure(
      await calls.send(alice, withBob, 'x', { reply_to_message_id: elsewhere.id }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await calls.send(alice, withBob, 'x', { reply_to_message_id: 'A'.repeat(22) }),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await calls.send(alice, withBob, 'x', { mentions: [bob.user.address] }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('reactions', () => {
  it('an encrypted reaction is set, replaced and removed; both sides hear each change', async () => {
    const sent = await calls.sent(alice, withBob, 'react to me');
    const set = expectOk(await calls.react(bob, withAlice, sent.id, { ciphertext: b64('👍') }));
    expect(set.chat_message.reactions).toEqual([
      { reactor_address: addressOf(bob), ciphertext: b64('👍'), reacted_at: expect.any(String) },
    ]);
    const live = await a1.next('message.reaction', about(sent.id));
    expect(live.data).toMatchObject({
      reactor_address: addressOf(bob),
      ciphertext: b64('👍'),
      removed: false,
    });
    expectOk(await calls.react(bob, withAlice, sent.id, { ciphertext: b64('❤️') }));
    await a2.next('message.reaction', about(sent.id), 5000, 2);
    const replaced = (await calls.byId(alice, withBob)).get(sent.id)!;
    expect(replaced.reactions.map((each: Json) => text(each.ciphertext))).toEqual(['❤️']);
    expectOk(await calls.unreact(bob, withAlice, sent.id));
    const removed = await a1.next('message.reaction', about(sent.id), 5000, 3);
    expect(removed.data).toMatchObject({ removed: true, ciphertext: null });
    expect((await calls.byId(alice, withBob)).get(sent.id)!.reactions).toEqual([]);
  });

  it('refuses a channel key in a direct chat, an oversized reaction, and view-once targets (400)', async () => {
    const sent = await calls.sent(alice, withBob, 'x');
    expectFailure(
      await calls.react(bob, withAlice, sent.id, { key: '👍' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await calls.react(bob, withAlice, sent.id, {}), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await calls.react(bob, withAlice, sent.id, {
        ciphertext: Buffer.alloc(1025).toString('base64'),
      }),
      400,
      'INVALID_ARGUMENT',
    );
    const once = await calls.sent(alice, withBob, 'once', { view_once: true });
    expectFailure(
      await calls.react(bob, withAlice, once.id, { ciphertext: b64('x') }),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('pins', () => {
  it('either participant pins and unpins; pins are listed in pin order; at most 10', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 10; i++) ids.push((await calls.sent(alice, withBob, `pin ${i}`)).id);
    expectOk(await calls.pin(bob, withAlice, ids[3]!));
    const live = await a1.next('message.pinned', about(ids[3]!));
    expect(live.data).toMatchObject({ actor_address: addressOf(bob) });
    for (const id of ids.filter((each) => each !== ids[3]))
      expectOk(await calls.pin(alice, withBob, id));
    expectOk(await calls.pin(alice, withBob, ids[3]!));
    const listed = expectOk(await calls.pinned(bob, withAlice)).messages.map(
      (each: Json) => each.id,
    );
    expect(listed).toEqual([ids[3], ...ids.filter((each) => each !== ids[3])]);
    const eleventh = await calls.sent(alice, withBob, 'one too many');
    expectFailure(await calls.pin(alice, withBob, eleventh.id), 409, 'PIN_LIMIT');
    expect((await calls.byId(alice, withBob)).get(ids[0]!)!.pinned).toBe(true);
    for (const id of ids) expectOk(await calls.unpin(bob, withAlice, id));
    await a2.next('message.unpinned', () => true, 5000, 10);
    expect(expectOk(await calls.pinned(alice, withBob)).messages).toEqual([]);
  });
});

describe('deletions', () => {
  it('delete for me hides a message on the caller devices only', async () => {
    const sent = await calls.sent(alice, withBob, 'hide me');
    expectOk(await api.post('/api/v1/star-message', { message_id: sent.id }, bearer(bob)));
    expectOk(await calls.deleteForMe(bob, withAlice, sent.id));
    const live = await b1.next('message.hidden', about(sent.id));
    expect(live.data).toEqual({ conversation_id: sent.conversation_id, message_id: sent.id });
    expect((await calls.byId(bob, withAlice)).has(sent.id)).toBe(false);
    expect((await calls.byId(alice, withBob)).has(sent.id)).toBe(true);
    const starred = expectOk(await api.get('/api/v1/starred-messages', bearer(bob))).messages;
    expect(starred.map((each: Json) => each.id)).not.toContain(sent.id);
    expectOk(await calls.deleteForMe(bob, withAlice, sent.id));
    expectFailure(
      await calls.edit(alice, { peer_address: carol.user.address }, sent.id, 'x'),
      404,
      'NOT_FOUND',
    );
    expect(a1.ofType('message.hidden')).toEqual([]);
  });

  it('delete for everyone: tombstone everywhere, reactions, pin and stars gone, media released, replay scrubbed', async () => {
    const upload = expectOk(
      await api.post(
        '/api/v1/upload-media',
        { kind: 'file', content_type: 'application/octet-stream', data: b64('secret bytes') },
        bearer(alice),
      ),
    );
    const sent = expectOk(
      await api.post(
        '/api/v1/file/send',
        {
          client_message_id: newClientId(),
          recipient_address: bob.user.address,
          ciphertext: b64('SECRET-CIPHERTEXT'),
          media_id: upload.media_id,
        },
        bearer(alice),
      ),
    ).chat_message;
    expectOk(await calls.edit(alice, withBob, sent.id, 'SECRET-EDITED'));
    expectOk(await calls.react(bob, withAlice, sent.id, { ciphertext: b64('🔥') }));
    expectOk(await calls.pin(bob, withAlice, sent.id));
    expectOk(await api.post('/api/v1/star-message', { message_id: sent.id }, bearer(bob)));
    const deleted = expectOk(await calls.deleteForEveryone(alice, withBob, sent.id)).chat_message;
    expect(deleted).toMatchObject({
      id: sent.id,
      ciphertext: '',
      media_id: '',
      deleted_by: 'sender',
      reactions: [],
      pinned: false,
    });
    for (const device of [b1, a2]) {
      const frame = await device.next('message.deleted', about(sent.id));
      expect(frame.data).toMatchObject({ message_id: sent.id, deleted_by: 'sender' });
      expect(frame.data.message.ciphertext).toBe('');
    }
    const seen = (await calls.byId(bob, withAlice)).get(sent.id)!;
    expect(seen).toMatchObject({
      ciphertext: '',
      media_id: '',
      media_size: 0,
      deleted_by: 'sender',
    });
    expect(seen.deleted_at).not.toBe('');
    expect(expectOk(await calls.pinned(bob, withAlice)).messages).toEqual([]);
    const starred = expectOk(await api.get('/api/v1/starred-messages', bearer(bob))).messages;
    expect(starred.map((each: Json) => each.id)).not.toContain(sent.id);
    expectOk(await calls.deleteForEveryone(alice, withBob, sent.id));
    // The blob goes with its last reference (the sweeper runs every second here).
    await passesEventually(async () => {
      expect((await api.get(`/api/v1/media/${upload.media_id}`, bearer(alice))).status).toBe(410);
    }, 20_000);
    // A device replaying Bob's stream from its start gets the message's events scrubbed.
    const replaying = await connect(bob, { stream: '', seq: 0 });
    try {
      await replaying.next('message.deleted', about(sent.id));
      const frames = replaying.frames.filter(about(sent.id));
      expect(frames.map((frame) => frame.type)).toEqual(
        expect.arrayContaining(['message.new', 'message.edited', 'message.deleted']),
      );
      expect(JSON.stringify(frames)).not.toContain(b64('SECRET-CIPHERTEXT'));
      expect(JSON.stringify(frames)).not.toContain(b64('SECRET-EDITED'));
      expect(JSON.stringify(frames)).not.toContain(upload.media_id);
    } finally {
      replaying.close();
    }
    deletedId = sent.id;
    deletedMedia = upload.media_id;
  });

  it('refuses: the peer deleting the sender message 403, unknown 404, another conversation 404', async () => {
    const sent = await calls.sent(alice, withBob, 'not yours');
    expectFailure(await calls.deleteForEveryone(bob, withAlice, sent.id), 403, 'FORBIDDEN');
    expectFailure(await calls.deleteForEveryone(alice, withBob, 'A'.repeat(22)), 404, 'NOT_FOUND');
    expectFailure(
      await calls.deleteForEveryone(alice, { peer_address: carol.user.address }, sent.id),
      404,
      'NOT_FOUND',
    );
    expectFailure(await calls.deleteForMe(carol, withAlice, sent.id), 404, 'NOT_FOUND');
  });
});

describe('a device that was away', () => {
  it('replays exactly the changes it missed, in order; history alone shows the same state', async () => {
    const sent = await calls.sent(alice, withBob, 'before');
    await b1.next('message.new', about(sent.id));
    const position = b1.position;
    b1.close();
    expectOk(await calls.edit(alice, withBob, sent.id, 'after'));
    expectOk(await calls.react(alice, withBob, sent.id, { ciphertext: b64('🎉') }));
    expectOk(await calls.pin(alice, withBob, sent.id));
    b1 = await connect(bob, position);
    expect(b1.hello.resumed).toBe(true);
    await b1.next('message.pinned', about(sent.id));
    const missed = b1.frames.filter(
      (frame) => frame.type !== 'hello' && typeof frame.seq === 'number',
    );
    expect(missed.map((frame) => frame.type)).toEqual([
      'message.edited',
      'message.reaction',
      'message.pinned',
    ]);
    expect(missed.map((frame) => frame.seq)).toEqual([
      position.seq + 1,
      position.seq + 2,
      position.seq + 3,
    ]);
    const current = (await calls.byId(bob, withAlice)).get(sent.id)!;
    expect(text(current.ciphertext)).toBe('after');
    expect(current).toMatchObject({ edit_count: 1, pinned: true });
    expect(current.reactions.map((each: Json) => text(each.ciphertext))).toEqual(['🎉']);
  });
});

let deletedId = '';
let deletedMedia = '';

it('the store itself no longer holds the deleted message ciphertext or its media reference, after a restart too', async () => {
  expect(deletedId).not.toBe('');
  const { message, media } = await stopAndReadStore(service, async (store) => ({
    message: await store.collection<StoredMessage>(MESSAGES).findOne({ _id: deletedId }),
    media: await new MediaItems(store).find(deletedMedia),
  }));
  expect(message).toMatchObject({
    _id: deletedId,
    mediaId: '',
    mediaSha256: '',
    deletedBy: 'sender',
  });
  expect(message!.ciphertext).toBeUndefined();
  expect(JSON.stringify(message)).not.toContain('SECRET');
  expect(media?.state).toBe('deleted');
});
