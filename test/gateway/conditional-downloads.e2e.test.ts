/**
 * Conditional requests over real HTTP on every route that serves bytes with an ETag (media
 * downloads with ranges, a public avatar, a sticker image), on the single-process embedded
 * default: `If-None-Match` answers 304 without a body for the current tag, `*`, a list holding
 * it and its weak form, and 200 for the unquoted hash or another tag; `If-Range` serves the
 * range only for the current strong tag; a caller without access never gets a 304. Read with
 * node:http, so the response's own headers (no Content-Length on a 304) and bytes are seen.
 */
import { createHash } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import sharp from 'sharp';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { expectOk } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const { service, api } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'false' });

let alice: SignedIn;
let bob: SignedIn;
beforeAll(async () => {
  [alice, bob] = await Promise.all([signIn(service.baseUrl), signIn(service.baseUrl)]);
});

interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: Buffer;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(api.url(path), { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

const hex = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const DATA = Buffer.from(Array.from({ length: 1000 }, (_, i) => (i * 7) % 256));

async function uploadFile(who: SignedIn, data: Buffer): Promise<string> {
  const body = { kind: 'file', content_type: 'application/octet-stream' };
  const uploaded = expectOk(
    await api.post('/api/v1/upload-media', { ...body, data: data.toString('base64') }, bearer(who)),
  );
  return uploaded.media_id as string;
}

/** A 304 as RFC 9110 section 15.4.5 has it: no body, no length, the cache headers kept. */
function expectNotModified(reply: Reply, etag: string, cacheControl: string) {
  expect(reply.status).toBe(304);
  expect(reply.body.length).toBe(0);
  expect(reply.headers['content-length']).toBeUndefined();
  expect(reply.headers['content-range']).toBeUndefined();
  expect(reply.headers['content-type']).toBeUndefined();
  expect(reply.headers.etag).toBe(etag);
  expect(reply.headers['cache-control']).toBe(cacheControl);
}

/** The If-None-Match values that match `etag`, and those that do not (whole body as before). */
const matching = (etag: string) => [etag, '*', `"other", ${etag}`, `W/${etag}`];
const notMatching = (etag: string) => [etag.slice(1, -1), '"other"', `W/"other", "x"`];

/** media_bytes_total{direction="download"}: what the media service read for downloads. */
async function downloadedBytes(): Promise<number> {
  const metrics = (await get('/metrics')).body.toString();
  const line = /^media_bytes_total\{direction="download"\} (\d+)/m.exec(metrics);
  return Number(line?.[1] ?? 0);
}

describe('media downloads', () => {
  it('answers 304 without a body for the current ETag, *, a list and the weak form', async () => {
    const id = await uploadFile(alice, DATA);
    const etag = `"${hex(DATA)}"`;
    const auth = bearer(alice);
    for (const value of matching(etag)) {
      const reply = await get(`/api/v1/media/${id}`, { ...auth, 'if-none-match': value });
      expectNotModified(reply, etag, 'private, max-age=3600');
      // If-None-Match is evaluated before Range (RFC 9110, section 13.2.2).
      const ranged = await get(`/api/v1/media/${id}`, {
        ...auth,
        'if-none-match': value,
        range: 'bytes=0-9',
      });
      expectNotModified(ranged, etag, 'private, max-age=3600');
    }
    // The deprecated prefix is the same route.
    expect((await get(`/api/media/${id}`, { ...auth, 'if-none-match': etag })).status).toBe(304);
  });

  it('reads nothing from storage for a 304', async () => {
    const id = await uploadFile(alice, DATA);
    const before = await downloadedBytes();
    const reply = await get(`/api/v1/media/${id}`, { ...bearer(alice), 'if-none-match': '*' });
    expect(reply.status).toBe(304);
    expect(await downloadedBytes()).toBe(before);
    // The counter does move for a download, so the comparison above can fail.
    expect((await get(`/api/v1/media/${id}`, bearer(alice))).status).toBe(200);
    expect(await downloadedBytes()).toBe(before + DATA.length);
  });

  it('serves the bytes (200) for the unquoted hash and for another ETag', async () => {
    const id = await uploadFile(alice, DATA);
    for (const value of notMatching(`"${hex(DATA)}"`)) {
      const reply = await get(`/api/v1/media/${id}`, { ...bearer(alice), 'if-none-match': value });
      expect(reply.status).toBe(200);
      expect(reply.body.equals(DATA)).toBe(true);
      expect(reply.headers['content-length']).toBe('1000');
    }
  });

  it('serves the range for If-Range with the current ETag, the whole body otherwise', async () => {
    const id = await uploadFile(alice, DATA);
    const etag = `"${hex(DATA)}"`;
    const resumed = await get(`/api/v1/media/${id}`, {
      ...bearer(alice),
      range: 'bytes=100-199',
      'if-range': etag,
    });
    expect(resumed.status).toBe(206);
    expect(resumed.headers['content-range']).toBe('bytes 100-199/1000');
    expect(resumed.body.equals(DATA.subarray(100, 200))).toBe(true);
    for (const ifRange of ['"other"', `W/${etag}`, 'Wed, 21 Oct 2015 07:28:00 GMT']) {
      const restarted = await get(`/api/v1/media/${id}`, {
        ...bearer(alice),
        range: 'bytes=100-199',
        'if-range': ifRange,
      });
      expect(restarted.status).toBe(200);
      expect(restarted.headers['content-range']).toBeUndefined();
      expect(restarted.headers['content-length']).toBe('1000');
      expect(restarted.body.equals(DATA)).toBe(true);
    }
  });

  it('never answers 304 to a caller who may not read the media (the same 404, 401)', async () => {
    const id = await uploadFile(alice, DATA);
    const etag = `"${hex(DATA)}"`;
    for (const value of [etag, '*']) {
      const other = await get(`/api/v1/media/${id}`, { ...bearer(bob), 'if-none-match': value });
      expect(other.status).toBe(404);
      expect(JSON.parse(other.body.toString())).toMatchObject({ code: 'NOT_FOUND' });
      expect(other.headers.etag).toBeUndefined();
      const anonymous = await get(`/api/v1/media/${id}`, { 'if-none-match': value });
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.etag).toBeUndefined();
    }
  });

  it('over gRPC, which has no 304, sends the bytes whatever If-None-Match says', async () => {
    const id = await uploadFile(alice, DATA);
    const media = grpcClient(
      service.grpcAddress,
      'service/v1/media.proto',
      'service.v1.MediaService',
    );
    try {
      const metadata = new grpc.Metadata();
      metadata.set('authorization', `Bearer ${alice.accessToken}`);
      metadata.set('if-none-match', '*');
      const body = await unary(media, 'GetMedia', { media_id: id }, metadata);
      expect(Buffer.from(body.data).equals(DATA)).toBe(true);
    } finally {
      media.close();
    }
  });
});

describe('public avatars', () => {
  it('answer 304 for a matching If-None-Match and 200 otherwise, without a token', async () => {
    const picture = await sharp({
      create: { width: 8, height: 8, channels: 3, background: '#3366cc' },
    })
      .png()
      .toBuffer();
    const upload = { kind: 'avatar', content_type: 'image/png', data: picture.toString('base64') };
    const mediaId = expectOk(await api.post('/api/v1/upload-media', upload, bearer(bob))).media_id;
    expectOk(await api.post('/api/v1/update-profile', { avatar_media_id: mediaId }, bearer(bob)));
    const path = `/api/v1/avatar/${bob.user.address.toLowerCase()}`;
    const current = await get(path);
    expect(current.status).toBe(200);
    const etag = current.headers.etag as string;
    // Avatars are re-encoded: the ETag is the digest of the bytes served.
    expect(etag).toBe(`"${hex(current.body)}"`);
    for (const value of matching(etag))
      expectNotModified(await get(path, { 'if-none-match': value }), etag, 'public, max-age=300');
    for (const value of notMatching(etag)) {
      const reply = await get(path, { 'if-none-match': value });
      expect(reply.status).toBe(200);
      expect(reply.body.equals(current.body)).toBe(true);
    }
    // The thumbnail has its own ETag: the full image's does not match it.
    const thumbnail = await get(`${path}?size=thumbnail`, { 'if-none-match': etag });
    expect(thumbnail.status).toBe(200);
    expectNotModified(
      await get(`${path}?size=thumbnail`, { 'if-none-match': thumbnail.headers.etag as string }),
      thumbnail.headers.etag as string,
      'public, max-age=300',
    );
    // A user without an avatar is 404 even for *: nothing to be unmodified.
    const none = await get(`/api/v1/avatar/${alice.user.address}`, { 'if-none-match': '*' });
    expect(none.status).toBe(404);
  });
});

describe('sticker images', () => {
  const path = '/api/v1/stickers/basics.heart/image';

  it('answer 304 for a matching If-None-Match and 200 otherwise', async () => {
    const current = await get(path, bearer(alice));
    expect(current.status).toBe(200);
    const etag = current.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    for (const value of matching(etag))
      expectNotModified(
        await get(path, { ...bearer(alice), 'if-none-match': value }),
        etag,
        'private, max-age=604800',
      );
    for (const value of notMatching(etag)) {
      const reply = await get(path, { ...bearer(alice), 'if-none-match': value });
      expect(reply.status).toBe(200);
      expect(reply.body.equals(current.body)).toBe(true);
    }
  });

  it('never answers 304 without a token (401) or for an unknown sticker (404)', async () => {
    const etag = (await get(path, bearer(alice))).headers.etag as string;
    expect((await get(path, { 'if-none-match': etag })).status).toBe(401);
    expect((await get(path, { 'if-none-match': '*' })).status).toBe(401);
    const unknown = await get('/api/v1/stickers/basics.nope/image', {
      ...bearer(alice),
      'if-none-match': '*',
    });
    expect(unknown.status).toBe(404);
  });
});
