/**
 * Blobs in GridFS (MongoDB mode), through the official driver's `GridFSBucket`. GridFS writes
 * the chunks first and the file document last, and a blob is only readable through its file
 * document: a write cut off by a crash leaves chunks nobody can read, which `delete` (called by
 * the media sweeper for uploads that never finished) removes. A write that fails in this
 * process is aborted, which deletes its chunks at once.
 */
import { GridFSBucket, MongoClient } from 'mongodb';
import type { Db } from 'mongodb';
import type { BlobSource, BlobStore, ByteRange, StoredBlob } from './blob-store.js';
import { CountedDigest } from './counted-digest.js';

const BUCKET = 'media_blobs';

export class GridFsBlobStore implements BlobStore {
  private readonly bucket: GridFSBucket;

  private constructor(
    private readonly db: Db,
    private readonly client: MongoClient | undefined,
  ) {
    this.bucket = new GridFSBucket(db, { bucketName: BUCKET });
  }

  /** A client of its own on `mongodbUrl` (which names the database). */
  static async connect(mongodbUrl: string): Promise<GridFsBlobStore> {
    const client = await MongoClient.connect(mongodbUrl, {
      appName: 'messaging-media',
      writeConcern: { w: 'majority', journal: true },
    });
    return new GridFsBlobStore(client.db(), client);
  }

  async write(blobId: string, source: BlobSource, maxBytes: number): Promise<StoredBlob> {
    const upload = this.bucket.openUploadStreamWithId(blobId as never, blobId);
    try {
      const digest = new CountedDigest(maxBytes);
      for await (const chunk of source) {
        digest.add(chunk);
        if (!upload.write(chunk))
          await new Promise<void>((resolve, reject) =>
            upload.once('drain', resolve).once('error', reject),
          );
      }
      await new Promise<void>((resolve, reject) =>
        upload.end(() => resolve()).once('error', reject),
      );
      return digest.result();
    } catch (error) {
      await upload.abort().catch(() => undefined);
      throw error;
    }
  }

  async read(blobId: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined> {
    const file = await this.db
      .collection(`${BUCKET}.files`)
      .findOne({ _id: blobId as never }, { projection: { _id: 1 } });
    if (!file) return undefined;
    // GridFS counts the end exclusively, HTTP inclusively.
    return this.bucket.openDownloadStream(
      blobId as never,
      range ? { start: range.start, end: range.end + 1 } : {},
    );
  }

  async delete(blobId: string): Promise<void> {
    await this.db.collection(`${BUCKET}.files`).deleteOne({ _id: blobId as never });
    await this.db.collection(`${BUCKET}.chunks`).deleteMany({ files_id: blobId });
  }

  async close(): Promise<void> {
    await this.client?.close();
  }
}
