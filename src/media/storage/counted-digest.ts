/**
 * The running size and SHA-256 of bytes as they stream into a blob store, with the store's
 * size bound: both implementations count and hash the same way.
 */
import { createHash } from 'node:crypto';
import { BlobTooLargeError } from './blob-store.js';
import type { StoredBlob } from './blob-store.js';

export class CountedDigest {
  private readonly hash = createHash('sha256');
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  /** Takes the next chunk; throws `BlobTooLargeError` once the total passes the bound. */
  add(chunk: Uint8Array): void {
    this.size += chunk.byteLength;
    if (this.size > this.maxBytes) throw new BlobTooLargeError(this.maxBytes);
    this.hash.update(chunk);
  }

  result(): StoredBlob {
    return { size: this.size, sha256: this.hash.digest('hex') };
  }
}
