/**
 * Channels in the messaging routes (messages.proto), over real HTTP and gRPC on the single
 * process: sending with `channel_id` (owner and admins only, through the channels' publish
 * path: idempotency, media checks, numbering shared with PublishChannelPost), history pages of
 * posts with ListMessages' cursors, per-follower read markers and unread counts, and channels
 * in the chat list; bad input gets the envelope. The read markers' account move and deletion
 * run against the channels area's owner directly.
 */
import sharp from 'sharp';
import { bearerMetadata, grpc, grpcClient, unary } from '../support/grpc-client.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
let owner: SignedIn;
let admin: SignedIn;
let subscriber: SignedIn;
let stranger: SignedIn;
let counter = 0;
const b64 = (text: string) => Buffer.from(text).toString('base64');
const newId = () => `cm-${Date.now()}-${++counter}`;

beforeAll(async () => {
  [owner, admin, subscriber, stranger] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
});

/** A channel with an admin and a subscriber. */
async function staffedChannel(isPublic = true): Promise<string> {
  const id = expectOk(
    await api.post(
      '/api/v1/channels',
      { name: `bridge ${++counter}`, is_public: isPublic, admin_addresses: [admin.user.address] },
      bearer(owner),
    ),
  ).channel.id;
  expectOk(await api.post(`/api/v1/channels/${id}/subscribe`, {}, bearer(subscriber)));
  return id;
}

const send = (by: SignedIn, channelId: string, text: string, extra: Record<string, unknown> = {}) =>
  api.post(
    '/api/v1/send',
    { client_message_id: newId(), channel_id: channelId, ciphertext: b64(text), ...extra },
    bearer(by),
  );
const history = (by: SignedIn, channelId: string, query = '') =>
  api.get(`/api/v1/messages?channel_id=${encodeURIComponent(channelId)}${query}`, bearer(by));
const markRead = (by: SignedIn, channelId: string, upTo: string) =>
  api.post('/api/v1/mark-as-read', { channel_id: channelId, up_to_message_id: upTo }, bearer(by));
async function chatOf(by: SignedIn, channelId: string) {
  const { chats } = expectOk(await api.get('/api/v1/chats?page_size=200', bearer(by)));
  return chats.find((chat: { channel_id: string }) => chat.channel_id === channelId);
}
const texts = (messages: { ciphertext: string }[]) =>
  messages.map((message) => Buffer.from(message.ciphertext, 'base64').toString());

describe('sending with channel_id', () => {
  it('lets the owner and admins send (a Message of the channel) and refuses subscribers with 403', async () => {
    const id = await staffedChannel();
    const byOwner = expectOk(await send(owner, id, 'one'));
    expect(byOwner).toMatchObject({
      duplicate: false,
      chat_message: {
        channel_id: id,
        conversation_id: `channel:${id}`,
        sequence: 1,
        kind: 'text',
        status: 'sent',
        sender_address: owner.user.address.toLowerCase(),
      },
    });
    expect(expectOk(await send(admin, id, 'two')).chat_message).toMatchObject({
      channel_id: id,
      sequence: 2,
    });
    expectFailure(await send(subscriber, id, 'nope'), 403, 'FORBIDDEN');
    expectFailure(await send(stranger, id, 'nope'), 403, 'FORBIDDEN');
    // The same posts as PublishChannelPost's: one sequence, one list.
    const published = expectOk(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: newId(), ciphertext: b64('three') },
        bearer(owner),
      ),
    );
    expect(published.chat_message.sequence).toBe(3);
    const posts = expectOk(await api.get(`/api/v1/channels/${id}/posts`, bearer(subscriber))).posts;
    expect(texts(posts)).toEqual(['three', 'two', 'one']);
  });

  it('is idempotent by client_message_id across both routes, and 409 for another body', async () => {
    const id = await staffedChannel();
    const clientMessageId = newId();
    const first = expectOk(await send(owner, id, 'once', { client_message_id: clientMessageId }));
    const again = expectOk(await send(owner, id, 'once', { client_message_id: clientMessageId }));
    expect(again).toMatchObject({
      duplicate: true,
      chat_message: { id: first.chat_message.id, sequence: 1 },
    });
    const viaChannels = expectOk(
      await api.post(
        `/api/v1/channels/${id}/posts`,
        { client_message_id: clientMessageId, ciphertext: b64('once') },
        bearer(owner),
      ),
    );
    expect(viaChannels).toMatchObject({
      duplicate: true,
      chat_message: { id: first.chat_message.id },
    });
    expectFailure(
      await send(owner, id, 'other', { client_message_id: clientMessageId }),
      409,
      'CONFLICT',
    );
  });

  it('sends voice, file and image posts with the media checks of the channels', async () => {
    const id = await staffedChannel();
    const upload = async (kind: string) =>
      expectOk(
        await api.post(
          '/api/v1/upload-media',
          { kind, content_type: 'application/octet-stream', data: b64(`${kind} bytes`) },
          bearer(owner),
        ),
      ).media_id;
    const voice = expectOk(
      await api.post(
        '/api/v1/voice/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: b64('v'),
          media_id: await upload('voice'),
          duration_ms: 1200,
        },
        bearer(owner),
      ),
    );
    expect(voice.chat_message).toMatchObject({
      channel_id: id,
      kind: 'voice',
      duration_ms: 1200,
      sequence: 1,
    });
    const file = expectOk(
      await api.post(
        '/api/v1/file/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: b64('f'),
          media_id: await upload('file'),
        },
        bearer(owner),
      ),
    );
    expect(file.chat_message).toMatchObject({ kind: 'file', sequence: 2 });
    const image = expectOk(
      await send(owner, id, 'i', { kind: 'image', media_id: await upload('image') }),
    );
    expect(image.chat_message).toMatchObject({ kind: 'image', sequence: 3 });
    // Someone else's upload, an unknown one, one of another kind.
    const others = expectOk(
      await api.post(
        '/api/v1/upload-media',
        { kind: 'voice', content_type: 'application/octet-stream', data: b64('theirs') },
        bearer(admin),
      ),
    ).media_id;
    expectFailure(
      await api.post(
        '/api/v1/voice/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: b64('v'),
          media_id: others,
          duration_ms: 5,
        },
        bearer(owner),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        '/api/v1/video/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: b64('v'),
          media_id: 'no-such-upload',
          duration_ms: 5,
        },
        bearer(owner),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        '/api/v1/video/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: b64('v'),
          media_id: await upload('file'),
          duration_ms: 5,
        },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('refuses bad input with the envelope', async () => {
    const id = await staffedChannel();
    expectFailure(await send(owner, 'no-such-channel', 'x'), 404, 'NOT_FOUND');
    expectFailure(await send(owner, 'x'.repeat(300), 'x'), 404, 'NOT_FOUND');
    expectFailure(
      await send(owner, id, 'x', { client_message_id: 'bad id!' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await send(owner, id, ''), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: Buffer.alloc(65_537).toString('base64'),
        },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await send(owner, id, 'x', { view_once: true }), 400, 'INVALID_ARGUMENT');
    expectFailure(await send(owner, id, 'x', { kind: 'voice' }), 400, 'INVALID_ARGUMENT');
    expectFailure(await send(owner, id, 'x', { kind: 'image' }), 400, 'INVALID_ARGUMENT');
    expectFailure(await send(owner, id, 'x', { group_id: 'some-group' }), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await send(owner, id, 'x', { recipient_address: subscriber.user.address }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/voice/send',
        {
          client_message_id: newId(),
          channel_id: id,
          ciphertext: b64('v'),
          media_id: 'm',
          duration_ms: 0,
        },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    const privateChannel = await staffedChannel(false);
    expectFailure(await send(stranger, privateChannel, 'x'), 404, 'NOT_FOUND');
    expectFailure(
      await api.post('/api/v1/send', {
        client_message_id: newId(),
        channel_id: id,
        ciphertext: b64('x'),
      }),
      401,
      'UNAUTHORIZED',
    );
  });

  it('answers over native gRPC: a post for an admin, PERMISSION_DENIED for a subscriber', async () => {
    const client = grpcClient(
      service.grpcAddress,
      'service/v1/messages.proto',
      'service.v1.MessagesService',
    );
    const metadataOf = (user: SignedIn) => bearerMetadata(user.accessToken);
    try {
      const id = await staffedChannel();
      const request = {
        channel_id: id,
        client_message_id: newId(),
        ciphertext: Buffer.from('over grpc'),
      };
      await expect(
        unary(client, 'SendMessage', request, metadataOf(subscriber)),
      ).rejects.toMatchObject({ code: grpc.status.PERMISSION_DENIED });
      await expect(
        unary(client, 'SendMessage', { ...request, channel_id: 'unknown' }, metadataOf(admin)),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
      const sent = await unary(client, 'SendMessage', request, metadataOf(admin));
      expect(sent).toMatchObject({ success: true, chat_message: { channel_id: id, sequence: 1 } });
      const page = await unary(client, 'ListMessages', { channel_id: id }, metadataOf(subscriber));
      expect(page.messages.map((message: { id: string }) => message.id)).toEqual([
        sent.chat_message.id,
      ]);
    } finally {
      client.close();
    }
  });
});

describe('history with channel_id', () => {
  it('pages the posts oldest first with the documented cursors, for readers of the channel', async () => {
    const id = await staffedChannel();
    for (const text of ['p1', 'p2', 'p3', 'p4', 'p5']) expectOk(await send(owner, id, text));
    const newest = expectOk(await history(subscriber, id, '&page_size=2'));
    expect(newest).toMatchObject({ conversation_id: `channel:${id}`, has_more_after: false });
    expect(texts(newest.messages)).toEqual(['p4', 'p5']);
    expect(newest.messages.map((message: { sequence: number }) => message.sequence)).toEqual([
      4, 5,
    ]);
    const older = expectOk(
      await history(subscriber, id, `&page_size=2&before_cursor=${newest.before_cursor}`),
    );
    expect(texts(older.messages)).toEqual(['p2', 'p3']);
    expect(older.has_more_after).toBe(true);
    const oldest = expectOk(
      await history(subscriber, id, `&page_size=2&before_cursor=${older.before_cursor}`),
    );
    expect(texts(oldest.messages)).toEqual(['p1']);
    expect(oldest.before_cursor).toBe('');
    // Catching up: nothing new, then what arrived meanwhile.
    const caughtUp = expectOk(
      await history(subscriber, id, `&after_cursor=${newest.after_cursor}`),
    );
    expect(caughtUp.messages).toEqual([]);
    expectOk(await send(admin, id, 'p6'));
    expect(
      texts(
        expectOk(await history(subscriber, id, `&after_cursor=${caughtUp.after_cursor}`)).messages,
      ),
    ).toEqual(['p6']);
    // A public channel is readable by anyone signed in.
    expect(texts(expectOk(await history(stranger, id, '&page_size=1')).messages)).toEqual(['p6']);
  });

  it('hides private channels from non-followers and refuses bad cursors', async () => {
    const id = await staffedChannel(false);
    expectOk(await send(owner, id, 'secret'));
    expectFailure(await history(stranger, id), 404, 'NOT_FOUND');
    expectFailure(await history(owner, 'no-such-channel'), 404, 'NOT_FOUND');
    expect(texts(expectOk(await history(subscriber, id)).messages)).toEqual(['secret']);
    const other = await staffedChannel();
    const otherCursor = expectOk(await history(owner, other)).after_cursor;
    expectFailure(
      await history(owner, id, `&after_cursor=${otherCursor}`),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await history(owner, id, '&before_cursor=nonsense'), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await history(owner, id, `&before_cursor=${otherCursor}&after_cursor=${otherCursor}`),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await history(owner, id, '&page_size=201'), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await api.get(`/api/v1/messages?channel_id=${id}&group_id=g`, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('read markers and the chat list', () => {
  it("counts unread posts after each follower's marker, moved only forward by mark-as-read", async () => {
    const id = await staffedChannel();
    const posts = [];
    for (const text of ['a', 'b', 'c'])
      posts.push(expectOk(await send(owner, id, text)).chat_message);
    expect(await chatOf(subscriber, id)).toMatchObject({
      type: 'channel',
      conversation_id: `channel:${id}`,
      unread_count: 3,
      last_read_message_id: '',
      disappearing_timer_seconds: 0,
      last_message: { id: posts[2].id },
    });
    const marked = expectOk(await markRead(subscriber, id, posts[1].id));
    expect(marked).toMatchObject({
      message: 'Read marker moved',
      conversation_id: `channel:${id}`,
      last_read_message_id: posts[1].id,
      unread_count: 1,
    });
    expect(await chatOf(subscriber, id)).toMatchObject({
      unread_count: 1,
      last_read_message_id: posts[1].id,
    });
    // Backwards changes nothing.
    expect(expectOk(await markRead(subscriber, id, posts[0].id))).toMatchObject({
      message: 'Read marker unchanged',
      last_read_message_id: posts[1].id,
      unread_count: 1,
    });
    // A new post is one more unread for the subscriber; the admin who published it has read it.
    const fourth = expectOk(await send(admin, id, 'd')).chat_message;
    expect(await chatOf(subscriber, id)).toMatchObject({
      unread_count: 2,
      last_message: { id: fourth.id },
    });
    expect(await chatOf(admin, id)).toMatchObject({
      unread_count: 0,
      last_read_message_id: fourth.id,
    });
    expect(await chatOf(owner, id)).toMatchObject({ unread_count: 1 });
    // A new follower starts with nothing unread, and counts from there.
    const late = await signIn(service.baseUrl);
    expectOk(await api.post(`/api/v1/channels/${id}/subscribe`, {}, bearer(late)));
    expect(await chatOf(late, id)).toMatchObject({
      unread_count: 0,
      last_read_message_id: fourth.id,
    });
    const fifth = expectOk(await send(owner, id, 'e')).chat_message;
    expect(await chatOf(late, id)).toMatchObject({
      unread_count: 1,
      last_message: { id: fifth.id },
    });
    expect(expectOk(await markRead(subscriber, id, fifth.id)).unread_count).toBe(0);
    expect((await chatOf(subscriber, id)).unread_count).toBe(0);
    // No receipts in channels: the posts stay `sent`.
    expect(
      expectOk(await history(owner, id)).messages.map(
        (message: { status: string }) => message.status,
      ),
    ).toEqual(['sent', 'sent', 'sent', 'sent', 'sent']);
  });

  it('refuses bad mark-as-read input with the envelope', async () => {
    const id = await staffedChannel();
    const post = expectOk(await send(owner, id, 'x')).chat_message;
    const otherPost = expectOk(await send(owner, await staffedChannel(), 'y')).chat_message;
    expectFailure(await markRead(subscriber, id, ''), 400, 'INVALID_ARGUMENT');
    expectFailure(await markRead(subscriber, id, 'no-such-post'), 404, 'NOT_FOUND');
    expectFailure(await markRead(subscriber, id, 'x'.repeat(300)), 404, 'NOT_FOUND');
    expectFailure(await markRead(subscriber, id, otherPost.id), 404, 'NOT_FOUND');
    expectFailure(await markRead(subscriber, 'no-such-channel', post.id), 404, 'NOT_FOUND');
    const privateChannel = await staffedChannel(false);
    const privatePost = expectOk(await send(owner, privateChannel, 'z')).chat_message;
    expectFailure(await markRead(stranger, privateChannel, privatePost.id), 404, 'NOT_FOUND');
    expectFailure(
      await api.post(
        '/api/v1/mark-as-read',
        { channel_id: id, peer_address: owner.user.address, up_to_message_id: post.id },
        bearer(subscriber),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('lists owned and followed channels with title and avatar, merged with the other chats by activity, paged', async () => {
    const reader = await signIn(service.baseUrl);
    const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#3366cc' } })
      .png()
      .toBuffer();
    const avatar = expectOk(
      await api.post(
        '/api/v1/upload-media',
        { kind: 'avatar', content_type: 'image/png', data: png.toString('base64') },
        bearer(owner),
      ),
    ).media_id;
    const quiet = await staffedChannel();
    const lively = expectOk(
      await api.post(
        '/api/v1/channels',
        { name: 'Lively', is_public: true, avatar_media_id: avatar },
        bearer(owner),
      ),
    ).channel.id;
    expectOk(await api.post(`/api/v1/channels/${quiet}/subscribe`, {}, bearer(reader)));
    expectOk(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newId(),
          recipient_address: reader.user.address,
          ciphertext: b64('hello'),
        },
        bearer(stranger),
      ),
    );
    expectOk(await api.post(`/api/v1/channels/${lively}/subscribe`, {}, bearer(reader)));
    const post = expectOk(await send(owner, lively, 'news')).chat_message;

    const all = expectOk(await api.get('/api/v1/chats', bearer(reader)));
    expect(
      all.chats.map(
        (chat: { type: string; channel_id: string }) => `${chat.type} ${chat.channel_id}`,
      ),
    ).toEqual([`channel ${lively}`, 'direct ', `channel ${quiet}`]);
    expect(all.chats[0]).toMatchObject({
      title: 'Lively',
      avatar_media_id: avatar,
      unread_count: 1,
      last_message: { id: post.id, channel_id: lively },
    });
    expect(all.chats[2]).toMatchObject({
      title: expect.stringMatching(/^bridge /),
      unread_count: 0,
      group_id: '',
      peer_address: '',
    });
    expect(all.next_cursor).toBe('');
    // One at a time, the cursor walks the same order without repeats.
    const seen: string[] = [];
    let cursor = '';
    do {
      const page = expectOk(
        await api.get(
          `/api/v1/chats?page_size=1${cursor ? `&cursor=${cursor}` : ''}`,
          bearer(reader),
        ),
      );
      seen.push(...page.chats.map((chat: { conversation_id: string }) => chat.conversation_id));
      cursor = page.next_cursor;
    } while (cursor !== '' && seen.length < 10);
    expect(seen).toEqual(
      all.chats.map((chat: { conversation_id: string }) => chat.conversation_id),
    );
    // The owner lists the channel it owns; leaving a channel takes it off the list.
    expect(await chatOf(owner, lively)).toMatchObject({ title: 'Lively', unread_count: 0 });
    expectOk(await api.post(`/api/v1/channels/${quiet}/unsubscribe`, {}, bearer(reader)));
    expect(await chatOf(reader, quiet)).toBeUndefined();
    expectFailure(
      await api.get('/api/v1/chats?cursor=nonsense', bearer(reader)),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('channel_id where messages.proto says channels do not apply', () => {
  it('has no stars on posts: star-message and unstar-message answer 404 for a post, to every role', async () => {
    const id = await staffedChannel();
    const post = expectOk(await send(owner, id, 'not starrable')).chat_message.id as string;
    for (const reader of [owner, admin, subscriber, stranger]) {
      expectFailure(
        await api.post('/api/v1/star-message', { message_id: post }, bearer(reader)),
        404,
        'NOT_FOUND',
      );
      expectFailure(
        await api.post('/api/v1/unstar-message', { message_id: post }, bearer(reader)),
        404,
        'NOT_FOUND',
      );
    }
    expect(
      expectOk(await api.get(`/api/v1/starred-messages`, bearer(subscriber))).messages,
    ).toEqual([]);
  });

  it('has no typing indicators or disappearing timers for channels (the requests have no channel_id)', async () => {
    const id = await staffedChannel();
    expectFailure(
      await api.post('/api/v1/typing', { channel_id: id }, bearer(owner)),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/chat/disappearing-timer',
        { channel_id: id, disappearing_timer_seconds: 60 },
        bearer(owner),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });
});
