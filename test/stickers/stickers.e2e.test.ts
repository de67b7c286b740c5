/**
 * Stickers over real HTTP, native gRPC and a real WebSocket client, on the single-process
 * embedded default with the shipped pack: the catalog lists, a pack's stickers, the image with
 * its cache headers, a sticker sent to a direct chat and a group (persisted, idempotent,
 * delivered over /ws, in history), unknown packs and stickers 404, and bad input refused with
 * the envelope on every route.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { RealtimeClient } from '../support/realtime-client.js';
import { expectFailure, expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });
const clients: RealtimeClient[] = [];
afterAll(() => clients.forEach((client) => client.close()));

const addressOf = (session: SignedIn) => session.user.address.toLowerCase();
const shippedImage = (name: string) =>
  readFileSync(new URL(`../../assets/stickers/basics/${name}.png`, import.meta.url));
let counter = 0;
const newId = () => `st-${Date.now()}-${++counter}`;

it('lists the catalog, a pack with its stickers, and pages', async () => {
  const alice = await signIn(service.baseUrl);
  const list = expectOk(await api.get('/api/v1/stickers/packs', bearer(alice)));
  expect(list.packs).toEqual([
    {
      id: 'basics',
      title: 'Basics',
      author: 'Messaging service',
      cover: {
        id: 'basics.smile',
        pack_id: 'basics',
        emoji: '😀',
        image_url: '/api/v1/stickers/basics.smile/image',
      },
      sticker_count: 3,
      animated: false,
      stickers: [],
    },
  ]);
  expect(list.next_cursor).toBe('');
  const pack = expectOk(await api.get('/api/v1/stickers/packs/basics', bearer(alice))).pack;
  expect(pack.stickers.map((sticker: { id: string }) => sticker.id)).toEqual([
    'basics.smile',
    'basics.heart',
    'basics.thumbs-up',
  ]);
  // The unversioned prefix serves the same catalog.
  expect(expectOk(await api.get('/api/stickers/packs', bearer(alice))).packs).toEqual(list.packs);
  const firstPage = expectOk(await api.get('/api/v1/stickers/packs?page_size=1', bearer(alice)));
  expect(firstPage.packs).toHaveLength(1);
  expect(firstPage.next_cursor).toBe('');
});

it('serves a sticker image to signed-in users, with an ETag and cache headers', async () => {
  const alice = await signIn(service.baseUrl);
  const response = await fetch(api.url('/api/v1/stickers/basics.heart/image'), {
    headers: bearer(alice),
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('image/png');
  expect(response.headers.get('cache-control')).toBe('private, max-age=604800');
  expect(response.headers.get('etag')).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  expect(Buffer.from(await response.arrayBuffer()).equals(shippedImage('heart'))).toBe(true);
  const other = await fetch(api.url('/api/v1/stickers/basics.smile/image'), {
    headers: bearer(alice),
  });
  expect(other.headers.get('etag')).not.toBe(response.headers.get('etag'));
  expect((await fetch(api.url('/api/v1/stickers/basics.heart/image'))).status).toBe(401);
  expectFailure(
    await api.get('/api/v1/stickers/basics.nope/image', bearer(alice)),
    404,
    'NOT_FOUND',
  );
});

it('sends a sticker to a direct chat: stored, delivered over /ws, in history, idempotent', async () => {
  const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const bobSocket = await RealtimeClient.connect(service.baseUrl, service.baseUrl, bob.accessToken);
  clients.push(bobSocket);
  const body = {
    client_message_id: newId(),
    recipient_address: bob.user.address,
    sticker_id: 'basics.heart',
  };
  const sent = expectOk(await api.post('/api/v1/stickers/send', body, bearer(alice)));
  expect(sent.duplicate).toBe(false);
  expect(sent.chat_message).toMatchObject({
    kind: 'sticker',
    sticker_id: 'basics.heart',
    sender_address: addressOf(alice),
    recipient_address: addressOf(bob),
    ciphertext: '',
  });
  const frame = await bobSocket.next(
    'message.new',
    (each) => each.data.message.id === sent.chat_message.id,
  );
  expect(frame.data.message).toMatchObject({ kind: 'sticker', sticker_id: 'basics.heart' });

  const again = expectOk(await api.post('/api/v1/stickers/send', body, bearer(alice)));
  expect(again).toMatchObject({ duplicate: true, chat_message: { id: sent.chat_message.id } });
  expectFailure(
    await api.post('/api/v1/stickers/send', { ...body, sticker_id: 'basics.smile' }, bearer(alice)),
    409,
    'CONFLICT',
  );

  const history = expectOk(
    await api.get(`/api/v1/messages?peer_address=${alice.user.address}`, bearer(bob)),
  ).messages;
  expect(
    history
      .filter((message: { kind: string }) => message.kind === 'sticker')
      .map((message: { id: string; sticker_id: string }) => [message.id, message.sticker_id]),
  ).toEqual([[sent.chat_message.id, 'basics.heart']]);
});

it('sends a sticker with encrypted extras into a group its members receive', async () => {
  const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const groupId = expectOk(
    await api.post(
      '/api/v1/groups/create',
      { name: 'stickers', member_addresses: [bob.user.address] },
      bearer(alice),
    ),
  ).group.id;
  const bobSocket = await RealtimeClient.connect(service.baseUrl, service.baseUrl, bob.accessToken);
  clients.push(bobSocket);
  const extras = Buffer.from('reply-to: 42').toString('base64');
  const sent = expectOk(
    await api.post(
      '/api/v1/stickers/send',
      {
        client_message_id: newId(),
        group_id: groupId,
        sticker_id: 'basics.thumbs-up',
        ciphertext: extras,
      },
      bearer(alice),
    ),
  );
  expect(sent.chat_message).toMatchObject({
    group_id: groupId,
    kind: 'sticker',
    sticker_id: 'basics.thumbs-up',
    ciphertext: extras,
  });
  await bobSocket.next('message.new', (frame) => frame.data.message.id === sent.chat_message.id);
  const outsider = await signIn(service.baseUrl);
  expectFailure(
    await api.post(
      '/api/v1/stickers/send',
      { client_message_id: newId(), group_id: groupId, sticker_id: 'basics.heart' },
      bearer(outsider),
    ),
    404,
    'NOT_FOUND',
  );
});

it('answers 404 for unknown packs and stickers, and refuses bad input with the envelope', async () => {
  const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const send = (body: Record<string, unknown>) =>
    api.post('/api/v1/stickers/send', body, bearer(alice));
  const valid = {
    client_message_id: newId(),
    recipient_address: bob.user.address,
    sticker_id: 'basics.smile',
  };
  expectFailure(await api.get('/api/v1/stickers/packs/nope', bearer(alice)), 404, 'NOT_FOUND');
  expectFailure(await send({ ...valid, sticker_id: 'basics.nope' }), 404, 'NOT_FOUND');
  expectFailure(await send({ ...valid, sticker_id: 'nope.smile' }), 404, 'NOT_FOUND');
  expectFailure(await send({ ...valid, sticker_id: '' }), 400, 'INVALID_ARGUMENT');
  expectFailure(await send({ ...valid, client_message_id: 'bad id!' }), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await send({ ...valid, recipient_address: 'not-an-address' }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await send({ client_message_id: newId(), sticker_id: 'basics.smile' }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await send({ ...valid, ciphertext: Buffer.alloc(65_537).toString('base64') }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await send({ ...valid, sticker_id: 7 }), 400, 'INVALID_ARGUMENT');
  expectFailure(
    await send({ client_message_id: newId(), channel_id: 'c1', sticker_id: 'basics.smile' }),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.post('/api/v1/stickers/send', 'not json', bearer(alice)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.get('/api/v1/stickers/packs?page_size=999', bearer(alice)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(
    await api.get('/api/v1/stickers/packs?cursor=zzz', bearer(alice)),
    400,
    'INVALID_ARGUMENT',
  );
  expectFailure(await api.get('/api/v1/stickers/packs'), 401, 'UNAUTHORIZED');
});

it('serves the catalog and sends stickers over native gRPC', async () => {
  const [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
  const client = grpcClient(
    service.grpcAddress,
    fileURLToPath(new URL('../../proto/service/v1/stickers.proto', import.meta.url)),
    'service.v1.StickersService',
  );
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${alice.accessToken}`);
  expect(await unary(client, 'GetStickerPack', { pack_id: 'basics' }, metadata)).toMatchObject({
    pack: { id: 'basics', sticker_count: 3 },
  });
  const image = await unary(client, 'GetStickerImage', { sticker_id: 'basics.smile' }, metadata);
  expect({
    type: image.content_type,
    same: Buffer.from(image.data).equals(shippedImage('smile')),
  }).toEqual({ type: 'image/png', same: true });
  const sent = await unary(
    client,
    'SendSticker',
    { client_message_id: newId(), recipient_address: bob.user.address, sticker_id: 'basics.smile' },
    metadata,
  );
  expect(sent.chat_message).toMatchObject({ kind: 'sticker', sticker_id: 'basics.smile' });
  await expect(
    unary(
      client,
      'SendSticker',
      { client_message_id: newId(), recipient_address: bob.user.address, sticker_id: 'x' },
      metadata,
    ),
  ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
  client.close();
});
