/**
 * Accepting an upload: the request's shape is checked first, then the item is recorded as
 * `uploading` (so that a blob cut off by a crash is found and removed by the sweeper), the
 * bytes stream into the blob store, and only a complete, checked blob makes the item `stored`.
 * Attachments stream straight through; avatar and sticker images (at most 5 MiB) are read
 * whole, since they are checked and re-encoded before they are stored; an avatar also gets its
 * thumbnail, a blob of its own written before the item is `stored`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { Code } from '@connectrpc/connect';
import { apiError, invalidArgument } from '../../platform/errors/api-error.js';
import { BlobTooLargeError } from '../storage/blob-store.js';
import type { BlobSource, BlobStore, StoredBlob } from '../storage/blob-store.js';
import type { MediaItem, Thumbnail } from '../media-item.js';
import { thumbnailBlobId } from '../media-item.js';
import type { MediaItems } from '../media-items.js';
import { isMediaKind, MEDIA_KINDS, rulesOf } from '../media-kinds.js';
import type { MediaKind } from '../media-kinds.js';
import { ABANDONED_UPLOAD_MS } from '../retention/release-time.js';
import type { MediaMetrics } from '../media-metrics.js';
import { avatarThumbnail, THUMBNAIL_CONTENT_TYPE } from './avatar-thumbnail.js';
import { checkedPublicImage } from './public-image.js';

export interface UploadDescription {
  readonly kind: string;
  readonly contentType: string;
  /** Empty, or the SHA-256 the data must have (64 hex digits). */
  readonly sha256: string;
}

export interface CheckedDescription {
  readonly kind: MediaKind;
  readonly contentType: string;
  readonly sha256: string;
}

const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/;
const SHA256 = /^[0-9a-f]{64}$/;

/** 400 for what the request says about the upload; the description normalised. */
export function checkDescription(description: UploadDescription): CheckedDescription {
  if (!isMediaKind(description.kind))
    throw invalidArgument(`kind must be one of ${Object.keys(MEDIA_KINDS).join(', ')}`);
  const contentType = description.contentType.trim().toLowerCase();
  if (contentType.length > 127 || !CONTENT_TYPE.test(contentType))
    throw invalidArgument('content_type must be a MIME type such as application/octet-stream');
  const allowed = rulesOf(description.kind).contentTypes;
  if (!allowed.includes(contentType))
    throw invalidArgument(
      `content_type for kind ${description.kind} must be ${allowed.join(' or ')}`,
    );
  const sha256 = description.sha256.toLowerCase();
  if (sha256 !== '' && !SHA256.test(sha256)) throw invalidArgument('sha256 must be 64 hex digits');
  return { kind: description.kind, contentType, sha256 };
}

/** 413: the upload is larger than its kind allows (the rest of it is not read). */
export const tooLarge = (maxBytes: number) =>
  apiError(
    Code.InvalidArgument,
    'PAYLOAD_TOO_LARGE',
    `The upload exceeds ${maxBytes} bytes for its kind`,
  );

export class Uploads {
  constructor(
    private readonly items: MediaItems,
    private readonly blobs: BlobStore,
    private readonly unreferencedRetentionMs: number,
    private readonly metrics: MediaMetrics,
  ) {}

  /** Stores the bytes of `source` as a new item of `owner`; throws `tooLarge` past the kind's limit. */
  async upload(
    owner: string,
    description: CheckedDescription,
    source: BlobSource,
  ): Promise<MediaItem> {
    const { kind, contentType } = description;
    const createdAt = new Date();
    const item: MediaItem = {
      _id: randomBytes(16).toString('base64url'),
      ownerAddress: owner,
      kind,
      contentType,
      size: 0,
      sha256: '',
      createdAt,
      state: 'uploading',
      references: [],
      revision: 0,
      releaseCheckAt: new Date(createdAt.getTime() + ABANDONED_UPLOAD_MS),
    };
    await this.items.insertUploading(item);
    let written: WrittenBlobs | undefined;
    try {
      written = await this.writeBlobs(item._id, description, source);
      const { stored } = written;
      if (stored.size === 0) throw invalidArgument('data must not be empty');
      if (description.sha256 !== '' && description.sha256 !== stored.sha256 && !rulesOf(kind).image)
        throw invalidArgument('sha256 does not match the data');
    } catch (error) {
      if (written) await this.blobs.delete(item._id);
      if (kind === 'avatar') await this.blobs.delete(thumbnailBlobId(item._id));
      await this.items.forget(item._id);
      throw error instanceof BlobTooLargeError ? tooLarge(error.maxBytes) : error;
    }
    const { stored, thumbnail } = written;
    const result = {
      size: stored.size,
      sha256: stored.sha256,
      ...(thumbnail ? { thumbnail } : {}),
      contentType,
      releaseCheckAt: new Date(createdAt.getTime() + this.unreferencedRetentionMs),
    };
    if (!(await this.items.markStored(item._id, result)))
      throw new Error(`upload ${item._id} was given up while it was being stored`);
    this.metrics.bytes.inc({ direction: 'upload' }, stored.size);
    return {
      ...item,
      ...result,
      state: 'stored',
      revision: 1,
      releaseCheckAt: result.releaseCheckAt,
    };
  }

  private async writeBlobs(
    mediaId: string,
    description: CheckedDescription,
    source: BlobSource,
  ): Promise<WrittenBlobs> {
    const { maxBytes } = rulesOf(description.kind);
    if (!rulesOf(description.kind).image)
      return { stored: await this.blobs.write(mediaId, source, maxBytes) };
    const received = await readWhole(source, maxBytes);
    // Images are re-encoded, so the client's digest is checked against what it sent.
    if (description.sha256 !== '' && description.sha256 !== sha256Of(received))
      throw invalidArgument('sha256 does not match the data');
    if (received.length === 0) throw invalidArgument('data must not be empty');
    const image = await checkedPublicImage(description.kind, description.contentType, received);
    // The thumbnail first: an item whose blob exists always has its thumbnail too.
    const thumbnail: Thumbnail | undefined =
      description.kind === 'avatar'
        ? {
            ...(await this.blobs.write(
              thumbnailBlobId(mediaId),
              [await avatarThumbnail(image)],
              maxBytes,
            )),
            contentType: THUMBNAIL_CONTENT_TYPE,
          }
        : undefined;
    // The size limit applies to what the client sent; a re-encoded image may come out a little larger.
    const stored = await this.blobs.write(mediaId, [image], Number.MAX_SAFE_INTEGER);
    return { stored, ...(thumbnail ? { thumbnail } : {}) };
  }
}

/** What an upload wrote: the item's blob, and an avatar's thumbnail. */
interface WrittenBlobs {
  readonly stored: StoredBlob;
  readonly thumbnail?: Thumbnail;
}

async function readWhole(source: BlobSource, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of source) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new BlobTooLargeError(maxBytes);
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks, size);
}

const sha256Of = (data: Buffer) => createHash('sha256').update(data).digest('hex');
