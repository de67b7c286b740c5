/**
 * Where media bytes live: a port with two implementations, files under `DATA_DIR/media/`
 * (`FileBlobStore`) and GridFS (`GridFsBlobStore`) when the store is MongoDB. The metadata
 * (owner, kind, references) is a document in the store (`media-item.ts`); a blob store only
 * keeps bytes under an id. Writes are streamed and bounded, so an upload never sits in memory,
 * and a blob becomes readable only once all of it is durable: a write that fails or is cut off
 * leaves nothing that reads back truncated.
 */
/** Bytes to write, streamed or at hand. */
export type BlobSource = AsyncIterable<Uint8Array> | Iterable<Uint8Array>;

export interface StoredBlob {
  readonly size: number;
  /** SHA-256 of the bytes, 64 lowercase hex digits. */
  readonly sha256: string;
}

/** Inclusive byte positions, as HTTP ranges count them. */
export interface ByteRange {
  readonly start: number;
  readonly end: number;
}

export interface BlobStore {
  /**
   * Writes `source` under `blobId` (new), counting and hashing as it goes. When more than
   * `maxBytes` arrive it stops reading and throws `BlobTooLargeError`; when the source fails it
   * throws the source's error. Either way nothing is left under `blobId`.
   */
  write(blobId: string, source: BlobSource, maxBytes: number): Promise<StoredBlob>;
  /** The blob's bytes (a range of them when given), streamed; `undefined` when there is no such blob. */
  read(blobId: string, range?: ByteRange): Promise<AsyncIterable<Uint8Array> | undefined>;
  /** Removes the blob; nothing happens when there is none. */
  delete(blobId: string): Promise<void>;
  /** Releases what the store holds open. */
  close(): Promise<void>;
}

export class BlobTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The blob exceeds ${maxBytes} bytes`);
  }
}
