/**
 * Media over real HTTP on the single-process embedded default: uploads of every kind at and
 * past their limit, content types, image checks, sha256; downloads with the access rule and
 * ranges; avatars in public, with their thumbnails; the voice send a recipient may download and a third user may not;
 * view-once media gone after viewing; unreferenced uploads swept (short retention here).
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import sharp from 'sharp';
import { expectFailure, expectOk, sleep } from '../support/session-api.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import type { Json } from '../support/json.js';

const RETENTION_MS = 4000;
const VIEWED_GRACE_MS = 1000;
const { service, api } = serviceForThisFile({
  MEDIA_UNREFERENCED_RETENTION: `${RETENTION_MS}ms`,
  MEDIA_SWEEP_INTERVAL: '200ms',
  MEDIA_VIEWED_GRACE: `${VIEWED_GRACE_MS}ms`,
});

let alice: SignedIn;
let bob: SignedIn;
let carol: SignedIn;
beforeAll(async () => {
  [alice, bob, carol] = await Promise.all([
    signIn(service.baseUrl),
    signIn(service.baseUrl),
    signIn(service.baseUrl),
  ]);
});

const MiB = 1_048_576;
const OCTETS = 'application/octet-stream';
let idCounter = 0;
const newId = () => `m-${Date.now()}-${++idCounter}`;
const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const randomBlob = (size: number) => Buffer.alloc(size, (idCounter++ % 251) + 1);

function upload(
  who: SignedIn,
  kind: string,
  data: Buffer,
  contentType = OCTETS,
  extra: Record<string, unknown> = {},
) {
  return api.post(
    '/api/v1/upload-media',
    { kind, content_type: contentType, data: data.toString('base64'), ...extra },
    bearer(who),
  );
}

async function download(
  who: SignedIn | undefined,
  path: string,
  headers: Record<string, string> = {},
) {
  const response = await fetch(api.url(path), {
    headers: { ...(who ? bearer(who) : {}), ...headers },
  });
  return {
    status: response.status,
    headers: response.headers,
    data: Buffer.from(await response.arrayBuffer()),
  };
}

const png = (width = 8) =>
  sharp({ create: { width, height: width, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer();

describe('uploads', () => {
  it.each([
    ['voice', 10 * MiB],
    ['image', 10 * MiB],
    ['video', 25 * MiB],
    ['file', 25 * MiB],
  ])(
    'a %s upload of exactly its limit (%i bytes) is stored; one byte more is refused',
    async (kind, limit) => {
      const data = randomBlob(limit);
      const stored = expectOk(await upload(alice, kind, data));
      expect(stored).toMatchObject({
        kind,
        content_type: OCTETS,
        size: limit,
        sha256: sha256(data),
      });
      expect(stored.media_id).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
      expectFailure(await upload(alice, kind, randomBlob(limit + 1)), 400, 'INVALID_ARGUMENT');
    },
  );

  it('refuses an avatar or sticker past its limit', async () => {
    expectFailure(
      await upload(alice, 'avatar', randomBlob(5 * MiB + 1), 'image/png'),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await upload(alice, 'sticker', randomBlob(MiB + 1), 'image/png'),
      400,
      'INVALID_ARGUMENT',
    );
  });

  it('refuses a body declared past the route limit with 413 before reading it', async () => {
    // Declares 40 MiB, sends 64 bytes: the answer comes without the rest ever being sent.
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest(api.url('/api/v1/upload-media'), {
        method: 'POST',
        headers: {
          ...bearer(alice),
          'content-type': 'application/json',
          'content-length': String(40 * MiB),
        },
      });
      request.on('response', (response) => {
        resolve(response.statusCode ?? 0);
        response.resume();
      });
      request.on('error', reject);
      request.write('x'.repeat(64));
    });
    expect(status).toBe(413);
    // Within the route's limit (34 MiB) the global 1 MiB MAX_BODY_BYTES does not apply: a 2 MiB JSON body is read.
    expect(expectOk(await upload(alice, 'file', randomBlob(2 * MiB))).size).toBe(2 * MiB);
  });

  it('refuses bad descriptions, wrong content types, non-images and a sha256 mismatch', async () => {
    const data = randomBlob(100);
    expectFailure(await upload(alice, 'hologram', data), 400, 'INVALID_ARGUMENT');
    expectFailure(await upload(alice, 'voice', data, ''), 400, 'INVALID_ARGUMENT');
    expectFailure(await upload(alice, 'voice', data, 'not a type'), 400, 'INVALID_ARGUMENT');
    expectFailure(await upload(alice, 'voice', data, 'image/png'), 400, 'INVALID_ARGUMENT');
    expectFailure(await upload(alice, 'avatar', data, OCTETS), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await upload(alice, 'sticker', await png(), 'image/jpeg'),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await upload(
        alice,
        'avatar',
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
        'image/png',
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await upload(alice, 'avatar', Buffer.from('%PDF-1.4 not an image'), 'image/png'),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(await upload(alice, 'voice', Buffer.alloc(0)), 400, 'INVALID_ARGUMENT');
    expectFailure(
      await upload(alice, 'voice', data, OCTETS, {
        sha256: sha256(randomBlob(100)) === sha256(data) ? '0'.repeat(64) : sha256(randomBlob(99)),
      }),
      400,
      'INVALID_ARGUMENT',
    );
    expectFailure(
      await upload(alice, 'voice', data, OCTETS, { sha256: 'abc' }),
      400,
      'INVALID_ARGUMENT',
    );
    expect(
      expectOk(await upload(alice, 'voice', data, OCTETS, { sha256: sha256(data) })).sha256,
    ).toBe(sha256(data));
    expectFailure(
      await api.post('/api/v1/upload-media', {
        kind: 'voice',
        content_type: OCTETS,
        data: data.toString('base64'),
      }),
      401,
      'UNAUTHORIZED',
    );
  });
});

/** A raw upload over node:http: the body comes from `chunks`, stopped as soon as the answer arrives. */
function streamedUpload(
  who: SignedIn,
  query: string,
  chunks: Iterable<Buffer>,
  headers: Record<string, string> = {},
) {
  return new Promise<{ status: number; body: Json; sent: number }>((resolve, reject) => {
    let sent = 0;
    let answered = false;
    const request = httpRequest(api.url(`/api/v1/upload-media${query}`), {
      method: 'POST',
      headers: { ...bearer(who), 'content-type': OCTETS, ...headers },
    });
    request.on('response', (response) => {
      answered = true;
      const parts: Buffer[] = [];
      response.on('data', (part: Buffer) => parts.push(part));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          body: JSON.parse(Buffer.concat(parts).toString()),
          sent,
        }),
      );
    });
    request.on('error', (error) => (answered ? undefined : reject(error)));
    const iterator = chunks[Symbol.iterator]();
    const pump = () => {
      for (;;) {
        if (answered) return;
        const next = iterator.next();
        if (next.done) return void request.end();
        sent += next.value.length;
        if (!request.write(next.value)) return void request.once('drain', pump);
      }
    };
    pump();
  });
}

function* pieces(total: number, size = 256 * 1024): Iterable<Buffer> {
  for (let at = 0; at < total; at += size) yield Buffer.alloc(Math.min(size, total - at), at % 251);
}

describe('streamed uploads (raw body)', () => {
  it('stores a 25 MiB video streamed with its sha256 and serves the same bytes', async () => {
    const data = Buffer.concat([...pieces(25 * MiB)]);
    const reply = await streamedUpload(
      alice,
      `?kind=video&sha256=${sha256(data)}`,
      pieces(25 * MiB),
      { 'content-length': String(25 * MiB) },
    );
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      success: true,
      kind: 'video',
      size: 25 * MiB,
      sha256: sha256(data),
      content_type: OCTETS,
    });
    const got = await download(alice, `/api/v1/media/${reply.body.media_id}`);
    expect(got.data.equals(data)).toBe(true);
  });

  it('takes kind and sha256 from headers too, and refuses a sha256 mismatch', async () => {
    const data = Buffer.alloc(1000, 3);
    const ok = await streamedUpload(alice, '', [data], {
      'x-media-kind': 'file',
      'x-media-sha256': sha256(data),
    });
    expect(ok.status).toBe(200);
    const bad = await streamedUpload(alice, '?kind=file', [data], {
      'x-media-sha256': '0'.repeat(64),
    });
    expect(bad).toMatchObject({ status: 400, body: { success: false, code: 'INVALID_ARGUMENT' } });
  });

  it('413 at once for a declared length past the kind limit, with nothing sent', async () => {
    const reply = await streamedUpload(alice, '?kind=voice', [], {
      'content-length': String(10 * MiB + 1),
    });
    expect(reply).toMatchObject({
      status: 413,
      body: { success: false, code: 'PAYLOAD_TOO_LARGE' },
    });
  });

  it('413 as soon as a chunked body passes the kind limit, without reading the rest', async () => {
    const reply = await streamedUpload(alice, '?kind=voice', pieces(200 * MiB));
    expect(reply).toMatchObject({
      status: 413,
      body: { success: false, code: 'PAYLOAD_TOO_LARGE' },
    });
    expect(reply.sent).toBeLessThan(100 * MiB);
  });

  it('refuses a wrong content type or kind and an unauthenticated upload', async () => {
    expect(
      await streamedUpload(alice, '?kind=voice', [Buffer.alloc(10)], {
        'content-type': 'image/png',
      }),
    ).toMatchObject({ status: 400 });
    expect(await streamedUpload(alice, '?kind=nothing', [Buffer.alloc(10)])).toMatchObject({
      status: 400,
    });
    expect(
      await streamedUpload(alice, '?kind=avatar', [Buffer.from('not an image')], {
        'content-type': 'image/png',
      }),
    ).toMatchObject({ status: 400 });
    expect(
      await streamedUpload({ accessToken: 'nope' } as SignedIn, '?kind=voice', [Buffer.alloc(10)]),
    ).toMatchObject({ status: 401 });
  });
});

describe('downloads', () => {
  it('serves the uploader the bytes with length, ETag and ranges (first, middle, suffix, unsatisfiable)', async () => {
    const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 256));
    const { media_id: id } = expectOk(await upload(alice, 'file', data));
    const whole = await download(alice, `/api/v1/media/${id}`);
    expect(whole.status).toBe(200);
    expect(whole.data.equals(data)).toBe(true);
    expect(whole.headers.get('content-length')).toBe('1000');
    expect(whole.headers.get('content-type')).toBe(OCTETS);
    expect(whole.headers.get('etag')).toBe(`"${sha256(data)}"`);
    expect(whole.headers.get('accept-ranges')).toBe('bytes');

    const first = await download(alice, `/api/v1/media/${id}`, { range: 'bytes=0-9' });
    expect(first.status).toBe(206);
    expect(first.data.equals(data.subarray(0, 10))).toBe(true);
    expect(first.headers.get('content-range')).toBe('bytes 0-9/1000');
    const middle = await download(alice, `/api/v1/media/${id}`, { range: 'bytes=500-' });
    expect(middle.status).toBe(206);
    expect(middle.data.equals(data.subarray(500))).toBe(true);
    expect(middle.headers.get('content-range')).toBe('bytes 500-999/1000');
    const suffix = await download(alice, `/api/v1/media/${id}`, { range: 'bytes=-100' });
    expect(suffix.status).toBe(206);
    expect(suffix.data.equals(data.subarray(900))).toBe(true);
    const past = await download(alice, `/api/v1/media/${id}`, { range: 'bytes=1000-1010' });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */1000');
    expect(JSON.parse(past.data.toString())).toMatchObject({
      success: false,
      code: 'RANGE_NOT_SATISFIABLE',
    });
  });

  it('avatars are public: no token needed, 404 for a malformed address or a user without one', async () => {
    const none = await download(undefined, `/api/v1/avatar/${bob.user.address}`);
    expect(none.status).toBe(404);
    expect(JSON.parse(none.data.toString())).toMatchObject({ success: false, code: 'NOT_FOUND' });
    expect((await download(undefined, '/api/v1/media/avatar/not-an-address')).status).toBe(404);
    expect((await download(undefined, '/api/avatar/0x1234')).status).toBe(404);
  });

  it('avatar and sticker uploads are downloadable by any authenticated user; the avatar is re-encoded without metadata', async () => {
    const photo = await sharp({
      create: { width: 16, height: 16, channels: 3, background: '#cc3366' },
    })
      .jpeg()
      .withExif({ IFD0: { Copyright: 'secret-location-data' } })
      .toBuffer();
    expect((await sharp(photo).metadata()).exif).toBeDefined();
    const avatar = expectOk(await upload(alice, 'avatar', photo, 'image/jpeg'));
    const served = await download(bob, `/api/v1/media/${avatar.media_id}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(served.data).metadata()).exif).toBeUndefined();
    expect(served.data.includes(Buffer.from('secret-location-data'))).toBe(false);
    const sticker = expectOk(await upload(alice, 'sticker', await png(), 'image/png'));
    expect((await download(carol, `/api/v1/media/${sticker.media_id}`)).status).toBe(200);
  });

  it('an avatar has a 128-pixel WebP thumbnail at ?size=thumbnail on every avatar route, public and cacheable', async () => {
    const photo = await sharp({
      create: { width: 600, height: 300, channels: 3, background: '#22aa55' },
    })
      .jpeg()
      .toBuffer();
    const mediaId = expectOk(await upload(carol, 'avatar', photo, 'image/jpeg')).media_id as string;
    expectOk(await api.post('/api/v1/update-profile', { avatar_media_id: mediaId }, bearer(carol)));
    const address = carol.user.address.toLowerCase();
    const full = await download(undefined, `/api/v1/avatar/${address}?size=full`);
    expect(full.status).toBe(200);
    expect(await sharp(full.data).metadata()).toMatchObject({
      format: 'jpeg',
      width: 600,
      height: 300,
    });
    for (const path of [
      `/api/v1/avatar/${address}`,
      `/api/v1/media/avatar/${address}`,
      `/api/avatar/${address}`,
    ]) {
      const thumbnail = await download(undefined, `${path}?size=thumbnail`);
      expect(thumbnail.status).toBe(200);
      expect(thumbnail.headers.get('content-type')).toBe('image/webp');
      expect(thumbnail.headers.get('cache-control')).toBe('public, max-age=300');
      expect(thumbnail.headers.get('etag')).toBe(`"${sha256(thumbnail.data)}"`);
      expect(Number(thumbnail.headers.get('content-length'))).toBe(thumbnail.data.length);
      expect(await sharp(thumbnail.data).metadata()).toMatchObject({
        format: 'webp',
        width: 128,
        height: 64,
      });
    }
    // Ranges apply to the thumbnail's own bytes; group and channel pictures (GetMedia) have it too.
    const part = await download(undefined, `/api/v1/avatar/${address}?size=thumbnail`, {
      range: 'bytes=0-9',
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toMatch(/^bytes 0-9\/\d+$/);
    const viaMedia = await download(bob, `/api/v1/media/${mediaId}?size=thumbnail`);
    expect(viaMedia.status).toBe(200);
    expect(viaMedia.headers.get('content-type')).toBe('image/webp');
    // A small avatar is not enlarged.
    const small = expectOk(await upload(carol, 'avatar', await png(16), 'image/png'))
      .media_id as string;
    expect(
      await sharp((await download(bob, `/api/v1/media/${small}?size=thumbnail`)).data).metadata(),
    ).toMatchObject({ width: 16, height: 16 });
  });

  it('refuses an unknown size (400) and a thumbnail of media that is not an avatar (400, after the access check)', async () => {
    const address = alice.user.address.toLowerCase();
    for (const size of ['huge', 'THUMBNAIL', '128']) {
      const reply = await download(undefined, `/api/v1/avatar/${address}?size=${size}`);
      expect(reply.status).toBe(400);
      expect(JSON.parse(reply.data.toString())).toMatchObject({
        success: false,
        code: 'INVALID_ARGUMENT',
      });
    }
    const file = expectOk(await upload(alice, 'file', randomBlob(100))).media_id as string;
    const thumbnailOfFile = await download(alice, `/api/v1/media/${file}?size=thumbnail`);
    expect(thumbnailOfFile.status).toBe(400);
    expect(JSON.parse(thumbnailOfFile.data.toString())).toMatchObject({
      success: false,
      code: 'INVALID_ARGUMENT',
    });
    expect((await download(carol, `/api/v1/media/${file}?size=thumbnail`)).status).toBe(404);
  });

  it('over gRPC an upload and its download travel in the messages (HttpBody), under the same access rule', async () => {
    const media = grpcClient(
      service.grpcAddress,
      'service/v1/media.proto',
      'service.v1.MediaService',
    );
    const as = (who: SignedIn) => {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${who.accessToken}`);
      return metadata;
    };
    try {
      const data = randomBlob(3 * MiB);
      const uploaded = await unary(
        media,
        'UploadMedia',
        { kind: 'file', content_type: OCTETS, data },
        as(alice),
      );
      expect(uploaded).toMatchObject({ success: true, size: 3 * MiB, sha256: sha256(data) });
      const body = await unary(media, 'GetMedia', { media_id: uploaded.media_id }, as(alice));
      expect(body.content_type).toBe(OCTETS);
      expect(Buffer.from(body.data).equals(data)).toBe(true);
      await expect(
        unary(media, 'GetMedia', { media_id: uploaded.media_id }, as(carol)),
      ).rejects.toMatchObject({ code: grpc.status.NOT_FOUND });
    } finally {
      media.close();
    }
  });

  it('is 404 for another user, an unknown id and an absurd id; 401 without a token', async () => {
    const { media_id: id } = expectOk(await upload(alice, 'file', randomBlob(10)));
    expect((await download(bob, `/api/v1/media/${id}`)).status).toBe(404);
    expect((await download(bob, '/api/v1/media/unknown')).status).toBe(404);
    expect((await download(bob, `/api/v1/media/${'x'.repeat(300)}`)).status).toBe(404);
    expect((await download(undefined, `/api/v1/media/${id}`)).status).toBe(401);
  });

  it('a voice message makes its upload downloadable by the recipient, not by a third user', async () => {
    const data = randomBlob(2048);
    const { media_id: id } = expectOk(await upload(alice, 'voice', data));
    const sendVoice = (mediaId: string, who = alice) =>
      api.post(
        '/api/v1/voice/send',
        {
          client_message_id: newId(),
          recipient_address: bob.user.address,
          ciphertext: 'AQID',
          media_id: mediaId,
          duration_ms: 1500,
        },
        bearer(who),
      );
    expectFailure(await sendVoice(id, carol), 404, 'NOT_FOUND');
    const { media_id: videoId } = expectOk(await upload(alice, 'video', randomBlob(10)));
    expectFailure(await sendVoice(videoId), 400, 'INVALID_ARGUMENT');
    const sent = expectOk(await sendVoice(id));
    expect(sent.chat_message).toMatchObject({
      kind: 'voice',
      media_id: id,
      media_size: 2048,
      media_sha256: sha256(data),
      media_content_type: OCTETS,
    });
    const got = await download(bob, `/api/v1/media/${id}`);
    expect(got.status).toBe(200);
    expect(got.data.equals(data)).toBe(true);
    expect((await download(carol, `/api/v1/media/${id}`)).status).toBe(404);
    // Referenced media outlives the unreferenced retention.
    await sleep(RETENTION_MS + 1000);
    expect((await download(bob, `/api/v1/media/${id}`)).status).toBe(200);
  });

  it('a message withheld from its recipient (who blocked the sender) gives them no access to its media', async () => {
    const dave = await signIn(service.baseUrl);
    // An earlier message made dave a member of the conversation: membership alone must not do.
    expectOk(
      await api.post(
        '/api/v1/send',
        { client_message_id: newId(), recipient_address: dave.user.address, ciphertext: 'AQID' },
        bearer(alice),
      ),
    );
    expectOk(
      await api.post('/api/v1/block-contact', { address: alice.user.address }, bearer(dave)),
    );
    const { media_id: id } = expectOk(await upload(alice, 'file', randomBlob(32)));
    expectOk(
      await api.post(
        '/api/v1/file/send',
        {
          client_message_id: newId(),
          recipient_address: dave.user.address,
          ciphertext: 'AQID',
          media_id: id,
        },
        bearer(alice),
      ),
    );
    expect((await download(dave, `/api/v1/media/${id}`)).status).toBe(404);
    expect((await download(alice, `/api/v1/media/${id}`)).status).toBe(200);
  });

  it('file and video sends and image messages take their own kind', async () => {
    const target = { recipient_address: bob.user.address, ciphertext: 'AQID' };
    const { media_id: fileId } = expectOk(await upload(alice, 'file', randomBlob(5)));
    expect(
      expectOk(
        await api.post(
          '/api/v1/file/send',
          { ...target, client_message_id: newId(), media_id: fileId },
          bearer(alice),
        ),
      ).chat_message.media_size,
    ).toBe(5);
    const { media_id: videoId } = expectOk(await upload(alice, 'video', randomBlob(6)));
    expect(
      expectOk(
        await api.post(
          '/api/v1/video/send',
          { ...target, client_message_id: newId(), media_id: videoId, duration_ms: 10 },
          bearer(alice),
        ),
      ).chat_message.kind,
    ).toBe('video');
    const { media_id: imageId } = expectOk(await upload(alice, 'image', randomBlob(7)));
    expectFailure(
      await api.post(
        '/api/v1/send',
        { ...target, client_message_id: newId(), kind: 'image', media_id: fileId },
        bearer(alice),
      ),
      400,
      'INVALID_ARGUMENT',
    );
    expect(
      expectOk(
        await api.post(
          '/api/v1/send',
          { ...target, client_message_id: newId(), kind: 'image', media_id: imageId },
          bearer(alice),
        ),
      ).chat_message.media_id,
    ).toBe(imageId);
    expect((await download(bob, `/api/v1/media/${imageId}`)).status).toBe(200);
  });

  it('view-once media stays downloadable by the viewer for the grace after opening, then is deleted', async () => {
    const { media_id: id } = expectOk(await upload(alice, 'image', randomBlob(64)));
    const sent = expectOk(
      await api.post(
        '/api/v1/send',
        {
          client_message_id: newId(),
          recipient_address: bob.user.address,
          ciphertext: 'AQID',
          kind: 'image',
          media_id: id,
          view_once: true,
        },
        bearer(alice),
      ),
    );
    expect(sent.chat_message.media_id).toBe('');
    const opened = expectOk(
      await api.post(
        `/api/v1/messages/view-once/${alice.user.address}/${sent.chat_message.id}`,
        {},
        bearer(bob),
      ),
    );
    expect(opened.chat_message.media_id).toBe(id);
    const openedAt = Date.now();
    expect(Date.parse(opened.media_available_until) - openedAt).toBeLessThanOrEqual(
      VIEWED_GRACE_MS,
    );
    expect((await download(bob, `/api/v1/media/${id}`)).status).toBe(200);
    expect((await download(carol, `/api/v1/media/${id}`)).status).toBe(404);
    await sleep(VIEWED_GRACE_MS + 1500);
    // The viewer's access ended with the grace; the sweeper then deleted the blob (410 to its uploader).
    expect((await download(bob, `/api/v1/media/${id}`)).status).toBe(404);
    expect((await download(alice, `/api/v1/media/${id}`)).status).toBe(410);
  });

  it('an upload nothing references is swept after the retention and then answers 410', async () => {
    const { media_id: id } = expectOk(await upload(alice, 'file', randomBlob(10)));
    expect((await download(alice, `/api/v1/media/${id}`)).status).toBe(200);
    await sleep(RETENTION_MS + 1500);
    const after = await download(alice, `/api/v1/media/${id}`);
    expect(after.status).toBe(410);
    expect(JSON.parse(after.data.toString())).toMatchObject({ success: false, code: 'GONE' });
    expectFailure(
      await api.post(
        '/api/v1/file/send',
        {
          client_message_id: newId(),
          recipient_address: bob.user.address,
          ciphertext: 'AQID',
          media_id: id,
        },
        bearer(alice),
      ),
      410,
      'GONE',
    );
  });
});
