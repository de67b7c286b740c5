/**
 * The messaging core on the single-process embedded default (role `all`, in-process shared
 * state): sending with idempotency, history, chat list, receipts, stars, typing, view-once,
 * disappearing timers and blocking, seen through real HTTP and a real WebSocket client.
 */
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { realtimeClientsForThisFile } from '../support/realtime-client.js';
import { serviceForThisFile } from '../support/service-for-tests.js';

let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;

const { service, api } = serviceForThisFile();
beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
});
const connect = realtimeClientsForThisFile(service);

const addressOf = (session: SignedIn) => session.user.address.toLowerCase();
const b64 = (text: string) => Buffer.from(text).toString('base64');
let idCounter = 0;
const newId = () => `m-${Date.now()}-${++idCounter}`;

function send(from: SignedIn, to: SignedIn, text: string, extra: Record<string, unknown> = {}) {
  return api.post(
    '/api/v1/send',
    {
      client_message_id: newId(),
      recipient_address: to.user.address,
      ciphertext: b64(text),
      ...extra,
    },
    bearer(from),
  );
}

const history = (viewer: SignedIn, peer: SignedIn, query = '') =>
  api.get(`/api/v1/messages?peer_address=${peer.user.address}${query}`, bearer(viewer));

describe('sending', () => {
  it("persists, acknowledges and delivers a message to the recipient and the sender's devices", async () => {
    const [bobSocket, aliceSocket] = await Promise.all([connect(bob), connect(alice)]);
    const reply = await send(alice, bob, 'hello bob');
    const body = expectOk(reply);
    expect(body).toMatchObject({
      duplicate: false,
      chat_message: {
        sender_address: addressOf(alice),
        recipient_address: addressOf(bob),
        kind: 'text',
        status: 'sent',
        sequence: 1,
        ciphertext: b64('hello bob'),
      },
    });
    const event = await bobSocket.next('message.new');
    expect(event).toMatchObject({
      seq: bobSocket.hello.seq + 1,
      data: { message: { id: body.chat_message.id, ciphertext: b64('hello bob') } },
    });
    expect(typeof event.stream).toBe('string');
    expect((await aliceSocket.next('message.new')).data.message.id).toBe(body.chat_message.id);
  });

  it('a retried send with the same client_message_id yields one message; a different body is 409', async () => {
    const id = newId();
    const first = expectOk(await send(alice, carol, 'once', { client_message_id: id }));
    const retry = expectOk(await send(alice, carol, 'once', { client_message_id: id }));
    expect(retry).toMatchObject({
      duplicate: true,
      chat_message: { id: first.chat_message.id, sequence: first.chat_message.sequence },
    });
    expectFailure(
      await send(alice, carol, 'something else', { client_message_id: id }),
      409,
      'CONFLICT',
    );
    const messages = expectOk(await history(carol, alice)).messages;
    expect(
      messages.filter((message: { client_message_id: string }) => message.client_message_id === id),
    ).toHaveLength(1);
  });

  it('concurrent identical sends create exactly one message', async () => {
    const id = newId();
    const replies = await Promise.all(
      Array.from({ length: 5 }, () => send(carol, bob, 'race', { client_message_id: id })),
    );
    const bodies = replies.map(expectOk);
    expect(new Set(bodies.map((body) => body.chat_message.id)).size).toBe(1);
    expect(bodies.filter((body) => body.duplicate === false)).toHaveLength(1);
  });

  it('refuses bad input with the documented envelope', async () => {
    expectFailure(
      await send(alice, bob, 'x', { client_message_id: 'has space' }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await send(alice, bob, '', {}), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await api.post(
        '/api/v1/send',
        { client_message_id: newId(), ciphertext: b64('x') },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/send',
        { client_message_id: newId(), recipient_address: '0x1234', ciphertext: b64('x') },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newId(),
          recipient_address: `0x${'ab'.repeat(20)}`,
          ciphertext: b64('x'),
        },
        bearer(alice),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(await send(alice, bob, 'x', { kind: 'voice' }), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await send(alice, bob, 'x', { kind: 'image', media_id: 'nope' }),
      404,
      'NOT_FOUND',
    );
    expectFailure(await send(alice, bob, 'x', { group_id: 'g1' }), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await api.post(
        '/api/v1/send',
        { client_message_id: newId(), group_id: 'unknown', ciphertext: b64('x') },
        bearer(alice),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newId(),
          recipient_address: bob.user.address,
          ciphertext: b64('x'.repeat(65_537)),
        },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post(
        '/api/v1/voice/send',
        {
          client_message_id: newId(),
          recipient_address: bob.user.address,
          ciphertext: b64('x'),
          media_id: 'm',
          duration_ms: 0,
        },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await api.post('/api/v1/send', {
        client_message_id: newId(),
        recipient_address: bob.user.address,
        ciphertext: b64('x'),
      }),
      401,
      'UNAUTHORIZED',
    );
  });
});

describe('history and chat list', () => {
  it('pages a conversation both ways with cursors, oldest first within a page', async () => {
    const [dave, erin] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    for (let i = 1; i <= 7; i += 1) expectOk(await send(dave, erin, `n${i}`));
    const newest = expectOk(await history(erin, dave, '&page_size=3'));
    expect(newest.messages.map((message: { sequence: number }) => message.sequence)).toEqual([
      5, 6, 7,
    ]);
    expect(newest.has_more_after).toBe(false);
    const older = expectOk(
      await history(erin, dave, `&page_size=3&before_cursor=${newest.before_cursor}`),
    );
    expect(older.messages.map((message: { sequence: number }) => message.sequence)).toEqual([
      2, 3, 4,
    ]);
    expect(older.has_more_after).toBe(true);
    const oldest = expectOk(
      await history(erin, dave, `&page_size=3&before_cursor=${older.before_cursor}`),
    );
    expect(oldest.messages.map((message: { sequence: number }) => message.sequence)).toEqual([1]);
    expect(oldest.before_cursor).toBe('');
    const forward = expectOk(
      await history(erin, dave, `&page_size=2&after_cursor=${oldest.after_cursor}`),
    );
    expect(forward.messages.map((message: { sequence: number }) => message.sequence)).toEqual([
      2, 3,
    ]);
    expect(forward.has_more_after).toBe(true);
    expectOk(await send(dave, erin, 'n8'));
    const caughtUp = expectOk(await history(erin, dave, `&after_cursor=${newest.after_cursor}`));
    expect(caughtUp.messages.map((message: { sequence: number }) => message.sequence)).toEqual([8]);
    // Fetching marks the recipient's copy delivered.
    expect(caughtUp.messages[0].status).toBe('delivered');
    expectFailure(
      await history(
        erin,
        dave,
        `&before_cursor=${newest.before_cursor}&after_cursor=${newest.after_cursor}`,
      ),
      400,
      'INVALID_ARGUMENT',
    );
    const otherConversation = expectOk(await history(alice, bob));
    expectFailure(
      await history(erin, dave, `&before_cursor=${otherConversation.after_cursor}`),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await history(erin, dave, '&before_cursor=garbage'), 400, 'INVALID_ARGUMENT');

    const chats = expectOk(await api.get('/api/v1/chats', bearer(erin))).chats;
    expect(chats[0]).toMatchObject({
      type: 'direct',
      peer_address: addressOf(dave),
      unread_count: 8,
      last_message: { sequence: 8 },
    });
    const marked = expectOk(
      await api.post(
        '/api/v1/mark-as-read',
        { peer_address: dave.user.address, up_to_message_id: newest.messages[2].id },
        bearer(erin),
      ),
    );
    expect(marked).toMatchObject({ last_read_message_id: newest.messages[2].id, unread_count: 1 });
  });

  it('mark-as-read moves forward only and tells the sender', async () => {
    const [frank, gina] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const franksSocket = await connect(frank);
    const first = expectOk(await send(frank, gina, 'a')).chat_message;
    const second = expectOk(await send(frank, gina, 'b')).chat_message;
    const read = expectOk(
      await api.post(
        '/api/v1/mark-as-read',
        { peer_address: frank.user.address, up_to_message_id: second.id },
        bearer(gina),
      ),
    );
    expect(read).toMatchObject({ last_read_message_id: second.id, unread_count: 0 });
    const receipt = await franksSocket.next('message.read');
    expect(receipt.data).toMatchObject({
      reader_address: addressOf(gina),
      up_to_message_id: second.id,
      up_to_sequence: second.sequence,
    });
    const back = expectOk(
      await api.post(
        '/api/v1/mark-as-read',
        { peer_address: frank.user.address, up_to_message_id: first.id },
        bearer(gina),
      ),
    );
    expect(back).toMatchObject({
      last_read_message_id: second.id,
      message: 'Read marker unchanged',
    });
    const franksView = expectOk(await history(frank, gina)).messages;
    expect(franksView.map((message: { status: string }) => message.status)).toEqual([
      'read',
      'read',
    ]);
    expectFailure(
      await api.post(
        '/api/v1/mark-as-read',
        { peer_address: frank.user.address, up_to_message_id: 'unknown' },
        bearer(gina),
      ),
      404,
      'NOT_FOUND',
    );
  });

  it('peer-info shows the profile and the relationship', async () => {
    const info = expectOk(
      await api.get(`/api/v1/peer-info?address=${bob.user.address}`, bearer(alice)),
    ).peer;
    expect(info).toMatchObject({
      profile: { address: addressOf(bob), username: bob.user.username, status: 'offline' },
      blocked: false,
      verified: false,
    });
    expect(info.conversation_id).toMatch(/^dm:/);
    expectFailure(
      await api.get('/api/v1/peer-info?address=nope', bearer(alice)),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('stars', () => {
  it('stars privately, lists and unstars', async () => {
    const sentMessage = expectOk(await send(alice, bob, 'star me')).chat_message;
    expectOk(await api.post('/api/v1/star-message', { message_id: sentMessage.id }, bearer(bob)));
    expectOk(await api.post('/api/v1/star-message', { message_id: sentMessage.id }, bearer(bob)));
    const starred = expectOk(await api.get('/api/v1/starred-messages', bearer(bob))).messages;
    expect(starred.map((message: { id: string }) => message.id)).toEqual([sentMessage.id]);
    expect(starred[0].starred).toBe(true);
    expect(expectOk(await api.get('/api/v1/starred-messages', bearer(alice))).messages).toEqual([]);
    expectFailure(
      await api.post('/api/v1/star-message', { message_id: sentMessage.id }, bearer(carol)),
      404,
      'NOT_FOUND',
    );
    expectOk(await api.post('/api/v1/unstar-message', { message_id: sentMessage.id }, bearer(bob)));
    expect(expectOk(await api.get('/api/v1/starred-messages', bearer(bob))).messages).toEqual([]);
    expectFailure(
      await api.post('/api/v1/unstar-message', {}, bearer(bob)),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('typing', () => {
  it('is delivered live and never stored', async () => {
    const [hank, ivy] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const ivysSocket = await connect(ivy);
    expectOk(await api.post('/api/v1/typing', { peer_address: ivy.user.address }, bearer(hank)));
    const typing = await ivysSocket.next('typing');
    expect(typing.data).toMatchObject({ from_address: addressOf(hank), state: 'typing' });
    expect(typing.seq).toBeUndefined();
    expect(expectOk(await history(ivy, hank)).messages).toEqual([]);
    expect(expectOk(await history(ivy, hank)).conversation_id).toBe('');
    expect(expectOk(await api.get('/api/v1/chats', bearer(ivy))).chats).toEqual([]);
    expectFailure(
      await api.post(
        '/api/v1/typing',
        { peer_address: ivy.user.address, state: 'dancing' },
        bearer(hank),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('view-once', () => {
  it('opens once for the recipient, then 410; 404 for others', async () => {
    const aliceSocket = await connect(alice);
    const sentMessage = expectOk(
      await send(alice, bob, 'secret', { view_once: true }),
    ).chat_message;
    const listed = expectOk(await history(bob, alice)).messages.find(
      (message: { id: string }) => message.id === sentMessage.id,
    );
    expect(listed).toMatchObject({ view_once: true, ciphertext: '' });
    expectFailure(
      await api.post(
        `/api/v1/messages/view-once/${alice.user.address}/${sentMessage.id}`,
        {},
        bearer(carol),
      ),
      404,
      'NOT_FOUND',
    );
    expectFailure(
      await api.post(
        `/api/v1/messages/view-once/${bob.user.address}/${sentMessage.id}`,
        {},
        bearer(alice),
      ),
      404,
      'NOT_FOUND',
    );
    const opened = expectOk(
      await api.post(
        `/api/v1/messages/view-once/${alice.user.address}/${sentMessage.id}`,
        {},
        bearer(bob),
      ),
    );
    expect(opened.chat_message).toMatchObject({ id: sentMessage.id, ciphertext: b64('secret') });
    expect(opened.chat_message.viewed_at).not.toBe('');
    expectFailure(
      await api.post(
        `/api/v1/messages/view-once/${alice.user.address}/${sentMessage.id}`,
        {},
        bearer(bob),
      ),
      410,
      'GONE',
    );
    expectFailure(
      await api.post(
        `/api/v1/messages/view-once/${alice.user.address}/unknown-id`,
        {},
        bearer(bob),
      ),
      404,
      'NOT_FOUND',
    );
    expect(
      (
        await aliceSocket.next(
          'message.viewed',
          (frame) => frame.data.message_id === sentMessage.id,
        )
      ).data.viewer_address,
    ).toBe(addressOf(bob));
  });
});

describe('disappearing timer', () => {
  it('applies to later messages, which vanish from every read path once their timer ends', async () => {
    const [jack, kim] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const before = expectOk(await send(jack, kim, 'stays')).chat_message;
    const timer = expectOk(
      await api.post(
        '/api/v1/chat/disappearing-timer',
        { peer_address: kim.user.address, disappearing_timer_seconds: 5 },
        bearer(jack),
      ),
    );
    expect(timer.disappearing_timer_seconds).toBe(5);
    const fleeting = expectOk(await send(jack, kim, 'fleeting')).chat_message;
    expect(fleeting.expires_at).not.toBe('');
    expect(before.expires_at).toBe('');
    expectOk(await api.post('/api/v1/star-message', { message_id: fleeting.id }, bearer(kim)));
    const during = expectOk(await history(kim, jack)).messages;
    expect(during.map((message: { kind: string }) => message.kind)).toEqual([
      'text',
      'system',
      'text',
    ]);
    expect(during[1]).toMatchObject({
      system_event: 'disappearing_timer_changed',
      system_data: { actor_address: addressOf(jack), disappearing_timer_seconds: 5 },
    });
    await sleep(5500);
    const after = expectOk(await history(kim, jack)).messages;
    expect(after.map((message: { id: string }) => message.id)).toEqual([before.id]);
    expect(expectOk(await api.get('/api/v1/starred-messages', bearer(kim))).messages).toEqual([]);
    expect(expectOk(await api.get('/api/v1/chats', bearer(kim))).chats[0].last_message.id).toBe(
      before.id,
    );
    expectFailure(
      await api.post(
        '/api/v1/chat/disappearing-timer',
        { peer_address: kim.user.address, disappearing_timer_seconds: 4 },
        bearer(jack),
      ),
      400,
      'INVALID_ARGUMENT',
    );
  });
});

describe('blocking', () => {
  it('a blocked sender reaches nobody and is not told; the blocker cannot send', async () => {
    const [liam, mia] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
    const miasSocket = await connect(mia);
    expectOk(await api.post('/api/v1/block-contact', { address: liam.user.address }, bearer(mia)));
    const sentMessage = expectOk(await send(liam, mia, 'are you there?')).chat_message;
    expect(sentMessage.status).toBe('sent');
    expectOk(await api.post('/api/v1/typing', { peer_address: mia.user.address }, bearer(liam)));
    expectFailure(await send(mia, liam, 'hi'), 403, 'FORBIDDEN');
    // A message Mia's socket does get proves it would have seen the others by now.
    expectOk(await send(alice, mia, 'marker'));
    await miasSocket.next(
      'message.new',
      (frame) => frame.data.message.ciphertext === b64('marker'),
    );
    expect(
      miasSocket.frames.filter(
        (frame) =>
          frame.data?.message?.sender_address === addressOf(liam) || frame.type === 'typing',
      ),
    ).toEqual([]);
    expect(expectOk(await history(mia, liam)).messages).toEqual([]);
    expect(
      expectOk(await history(liam, mia)).messages.map((message: { id: string }) => message.id),
    ).toEqual([sentMessage.id]);
    const blocked = expectOk(
      await api.get('/api/v1/blocked-contacts', bearer(mia)),
    ).blocked_contacts;
    expect(blocked.map((entry: { address: string }) => entry.address)).toEqual([addressOf(liam)]);
    expect(
      expectOk(await api.get(`/api/v1/peer-info?address=${liam.user.address}`, bearer(mia))).peer
        .blocked,
    ).toBe(true);
    const unblocked = expectOk(
      await api.post('/api/v1/unblock-contact', { address: liam.user.address }, bearer(mia)),
    );
    expect(unblocked.was_blocked).toBe(true);
    // What was sent while blocked stays undelivered.
    expect(expectOk(await history(mia, liam)).messages).toEqual([]);
    expectFailure(
      await api.post('/api/v1/block-contact', { address: mia.user.address }, bearer(mia)),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('status changes reach contacts as presence, but not those the user blocked', async () => {
    const [nora, omar, pia] = await Promise.all([
      signIn(service.baseUrl),
      signIn(service.baseUrl),
      signIn(service.baseUrl),
    ]);
    expectOk(await send(nora, omar, 'hi'));
    expectOk(await send(nora, pia, 'hi'));
    expectOk(await api.post('/api/v1/block-contact', { address: pia.user.address }, bearer(nora)));
    const [omarsSocket, piasSocket] = await Promise.all([connect(omar), connect(pia)]);
    const updated = expectOk(
      await api.post(
        '/api/v1/update-status',
        { status: 'busy', status_text: 'in a meeting' },
        bearer(nora),
      ),
    );
    expect(updated).toMatchObject({ status: 'busy', status_text: 'in a meeting' });
    expect((await omarsSocket.next('presence')).data).toMatchObject({
      address: addressOf(nora),
      status: 'busy',
    });
    expect(
      expectOk(await api.get(`/api/v1/peer-info?address=${nora.user.address}`, bearer(omar))).peer
        .profile.status,
    ).toBe('busy');
    expect(
      expectOk(await api.get(`/api/v1/peer-info?address=${nora.user.address}`, bearer(pia))).peer
        .profile.status,
    ).toBe('offline');
    expect(piasSocket.ofType('presence')).toEqual([]);
    expectFailure(
      await api.post('/api/v1/update-status', { status: 'sleepy' }, bearer(nora)),
      400,
      'INVALID_ARGUMENT',
    );
  });
});
