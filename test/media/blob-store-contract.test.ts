/**
 * One contract for both blob stores: files in DATA_DIR always, GridFS when MONGODB_URL is set
 * (skipped otherwise, and said so). A blob reads back whole and exactly; a range reads its
 * bytes; a write past its bound, or whose source fails, leaves nothing under its id.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobStore } from '../../src/media/storage/blob-store.js';
import { BlobTooLargeError } from '../../src/media/storage/blob-store.js';
import { FileBlobStore } from '../../src/media/storage/file-blob-store.js';
import { GridFsBlobStore } from '../../src/media/storage/gridfs-blob-store.js';
import { withDatabase } from '../support/stores-under-test.js';
import { MongoClient } from 'mongodb';

interface BlobStoreUnderTest {
  readonly blobs: BlobStore;
  dispose(): Promise<void>;
}

const engines: [string, () => Promise<BlobStoreUnderTest>][] = [
  [
    'files in DATA_DIR',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'blobs-'));
      const blobs = await FileBlobStore.open(dataDir);
      return {
        blobs,
        async dispose() {
          // Nothing a failed write began is left behind.
          expect(await readdir(join(dataDir, 'media', 'incoming'))).toEqual([]);
          await rm(dataDir, { recursive: true, force: true });
        },
      };
    },
  ],
];
const mongodbUrl = process.env.MONGODB_URL;
if (mongodbUrl) {
  engines.push([
    'GridFS',
    async () => {
      const url = withDatabase(mongodbUrl, `blobs_${process.pid}_${Date.now()}`);
      const blobs = await GridFsBlobStore.connect(url);
      return {
        blobs,
        async dispose() {
          await blobs.close();
          const admin = new MongoClient(url);
          await admin.db().dropDatabase();
          await admin.close();
        },
      };
    },
  ]);
} else {
  console.log('blob-store contract: MONGODB_URL unset, the GridFS half is skipped');
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const id = () => randomBytes(12).toString('base64url');
async function readAll(stream: AsyncIterable<Uint8Array> | undefined): Promise<Buffer | undefined> {
  if (!stream) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}
async function* chunked(data: Buffer, size: number): AsyncIterable<Uint8Array> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

describe.each(engines)('blob store contract: %s', (_name, open) => {
  let under: BlobStoreUnderTest;
  beforeEach(async () => {
    under = await open();
  });
  afterEach(async () => {
    await under.dispose();
  });

  it('stores a streamed blob and reads it back whole, with its size and SHA-256', async () => {
    const data = randomBytes(3 * 1_048_576 + 17);
    const blobId = id();
    const stored = await under.blobs.write(blobId, chunked(data, 65_536), data.length);
    expect(stored).toEqual({ size: data.length, sha256: sha256(data) });
    expect((await readAll(await under.blobs.read(blobId)))?.equals(data)).toBe(true);
  });

  it('reads inclusive ranges', async () => {
    const data = randomBytes(300_000);
    const blobId = id();
    await under.blobs.write(blobId, [data], data.length);
    expect(
      (await readAll(await under.blobs.read(blobId, { start: 0, end: 0 })))?.equals(
        data.subarray(0, 1),
      ),
    ).toBe(true);
    expect(
      (await readAll(await under.blobs.read(blobId, { start: 1000, end: 270_000 })))?.equals(
        data.subarray(1000, 270_001),
      ),
    ).toBe(true);
    expect(
      (await readAll(await under.blobs.read(blobId, { start: 299_990, end: 299_999 })))?.equals(
        data.subarray(299_990),
      ),
    ).toBe(true);
  });

  it('refuses a blob past its bound and keeps nothing of it', async () => {
    const blobId = id();
    await expect(
      under.blobs.write(blobId, chunked(randomBytes(1000), 100), 999),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await under.blobs.read(blobId)).toBeUndefined();
    const exact = randomBytes(1000);
    expect((await under.blobs.write(blobId, chunked(exact, 100), 1000)).size).toBe(1000);
  });

  it('keeps nothing of a write whose source fails half-way', async () => {
    const blobId = id();
    async function* failing(): AsyncIterable<Uint8Array> {
      yield randomBytes(10_000);
      throw new Error('client went away');
    }
    await expect(under.blobs.write(blobId, failing(), 1_000_000)).rejects.toThrow(
      'client went away',
    );
    expect(await under.blobs.read(blobId)).toBeUndefined();
  });

  it('answers undefined for an unknown blob; delete is idempotent', async () => {
    expect(await under.blobs.read(id())).toBeUndefined();
    const blobId = id();
    await under.blobs.write(blobId, [randomBytes(10)], 10);
    await under.blobs.delete(blobId);
    await under.blobs.delete(blobId);
    expect(await under.blobs.read(blobId)).toBeUndefined();
  });
});
