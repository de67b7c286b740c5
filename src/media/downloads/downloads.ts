/**
 * Serving a media item: 404 for an unknown id and for one the caller may not download (the
 * same answer, so ids cannot be probed), 410 once it was deleted, else its bytes (or an
 * avatar's thumbnail) or the range asked for, as a stream from the blob store (over REST they are sent as they are read; gRPC
 * answers a `google.api.HttpBody` message, so there they are gathered first).
 */
import { Code } from '@connectrpc/connect';
import { apiError, gone, invalidArgument, notFound } from '../../platform/errors/api-error.js';
import type { MediaItem } from '../media-item.js';
import type { MediaItems } from '../media-items.js';
import type { MediaMetrics } from '../media-metrics.js';
import type { BlobStore, ByteRange } from '../storage/blob-store.js';
import { thumbnailBlobId } from '../media-item.js';
import type { MediaAccess } from './media-access.js';
import { rangeOf } from './byte-range.js';

/** Which bytes of an item to serve: its own, or an avatar's thumbnail (avatar-thumbnail.ts). */
export type Rendition = 'full' | 'thumbnail';

/** The blob a download reads, with what its headers say about it. */
export interface ServedBlob {
  readonly id: string;
  readonly size: number;
  readonly sha256: string;
  readonly contentType: string;
}

export interface Download {
  readonly blob: ServedBlob;
  /** Set when a range was served (206). */
  readonly range?: ByteRange;
  /** How many bytes `chunks` yields. */
  readonly length: number;
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** 416 with the size the client should ask within (`Content-Range: bytes *\/size`). */
const unsatisfiable = (size: number) =>
  apiError(
    Code.OutOfRange,
    'RANGE_NOT_SATISFIABLE',
    `The range is outside the ${size} bytes of this media`,
    [['content-range', `bytes */${size}`]],
  );

export class Downloads {
  constructor(
    private readonly items: MediaItems,
    private readonly blobs: BlobStore,
    private readonly access: MediaAccess,
    private readonly metrics: MediaMetrics,
  ) {}

  /** The item `caller` may download (404/410 otherwise); `caller` undefined skips the access rule (public avatars). */
  async downloadable(mediaId: string, caller: string | undefined): Promise<MediaItem> {
    const item = await this.items.find(mediaId);
    if (!item || item.state === 'uploading') throw notFound('No such media');
    if (caller !== undefined && !(await this.access.mayDownload(caller, item)))
      throw notFound('No such media');
    if (item.state !== 'stored') throw gone('This media was deleted');
    return item;
  }

  /** A blob's bytes (`servedBlob`), whole or the range asked for. */
  async read(blob: ServedBlob, rangeHeader: string | null): Promise<Download> {
    const wanted = rangeOf(rangeHeader, blob.size);
    if (wanted.kind === 'unsatisfiable') throw unsatisfiable(blob.size);
    const range = wanted.kind === 'partial' ? wanted.range : undefined;
    const stream = await this.blobs.read(blob.id, range);
    // The sweeper deleted the blob between the item's read and this one.
    if (!stream) throw gone('This media was deleted');
    const length = range ? range.end - range.start + 1 : blob.size;
    this.metrics.bytes.inc({ direction: 'download' }, length);
    return { blob, length, chunks: stream, ...(range ? { range } : {}) };
  }
}

/** 400 for an unknown `size`; an empty one is the full image. */
export function renditionOf(size: string): Rendition {
  if (size === '' || size === 'full') return 'full';
  if (size === 'thumbnail') return 'thumbnail';
  throw invalidArgument('size must be full or thumbnail');
}

/** The item's bytes or its thumbnail (400 for a thumbnail of another kind than avatar). */
export function servedBlob(item: MediaItem, rendition: Rendition): ServedBlob {
  if (rendition === 'full')
    return { id: item._id, size: item.size, sha256: item.sha256, contentType: item.contentType };
  if (item.kind !== 'avatar') throw invalidArgument('Only avatar media have a thumbnail');
  // Avatars stored before thumbnails existed have none: their full image stands in.
  if (!item.thumbnail) return servedBlob(item, 'full');
  return { id: thumbnailBlobId(item._id), ...item.thumbnail };
}
