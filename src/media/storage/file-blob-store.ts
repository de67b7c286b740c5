/**
 * Blobs as files under `DATA_DIR/media/` (the embedded mode). A blob is written to a temporary
 * file in `media/incoming/`, fsync'd, renamed to its final name and the directory fsync'd, so a
 * crash at any point leaves either the whole blob or no blob under its name. What a crash left
 * in `incoming/` is deleted when the store opens: the embedded store's `LOCK` guarantees one
 * process per `DATA_DIR`, so nothing there can belong to a write still running.
 */
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { BlobSource, BlobStore, ByteRange, StoredBlob } from './blob-store.js';
import { CountedDigest } from './counted-digest.js';

const SAFE_ID = /^[A-Za-z0-9_-]{1,64}$/;
/**
 * Bytes per read of a download: 4× the 64 KiB default halves a 10 MiB download's reads and
 * writes' per-chunk cost (issue #29), while a slow client still holds at most one chunk.
 */
const READ_CHUNK_BYTES = 256 * 1024;

export class FileBlobStore implements BlobStore {
  private constructor(
    private readonly blobsDir: string,
    private readonly incomingDir: string,
  ) {}

  static async open(dataDir: string): Promise<FileBlobStore> {
    const blobsDir = join(dataDir, 'media');
    const incomingDir = join(blobsDir, 'incoming');
    await rm(incomingDir, { recursive: true, force: true });
    await mkdir(incomingDir, { recursive: true });
    return new FileBlobStore(blobsDir, incomingDir);
  }

  async write(blobId: string, source: BlobSource, maxBytes: number): Promise<StoredBlob> {
    const temporary = join(this.incomingDir, `${safeId(blobId)}.${randomBytes(6).toString('hex')}`);
    const file = await open(temporary, 'wx');
    try {
      const digest = new CountedDigest(maxBytes);
      for await (const chunk of source) {
        digest.add(chunk);
        await file.write(chunk);
      }
      await file.sync();
      await file.close();
      await rename(temporary, this.pathOf(blobId));
      await syncDirectory(this.blobsDir);
      return digest.result();
    } catch (error) {
      await file.close().catch(() => undefined);
      await rm(temporary, { force: true });
      throw error;
    }
  }

  /**
   * Opens the file and streams from that handle: one thread-pool round trip before the headers
   * can go out and none after for the open (a `stat` and then a stream opening the path took two,
   * each waiting for a core on a loaded machine, issue #29).
   */
  async read(blobId: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    const file = await open(this.pathOf(blobId), 'r').catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined;
      throw error;
    });
    // The stream closes the handle when it ends or is destroyed (a client that went away).
    return file?.createReadStream({
      highWaterMark: READ_CHUNK_BYTES,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async delete(blobId: string): Promise<void> {
    await rm(this.pathOf(blobId), { force: true });
  }

  async close(): Promise<void> {}

  private pathOf(blobId: string): string {
    return join(this.blobsDir, safeId(blobId));
  }
}

/** Ids come from the media area, but a path is built only from a safe one all the same. */
function safeId(blobId: string): string {
  if (!SAFE_ID.test(blobId)) throw new Error(`unsafe blob id ${JSON.stringify(blobId)}`);
  return blobId;
}

async function syncDirectory(path: string): Promise<void> {
  const directory = await open(path, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}
