/**
 * Serving a media item: 404 for an unknown id and for one the caller may not download (the
 * same answer, so ids cannot be probed), 410 once it was deleted, else its bytes or the range
 * asked for, as a stream from the blob store (over REST they are sent as they are read; gRPC
 * answers a `google.api.HttpBody` message, so there they are gathered first).
 */
import { Code } from '@connectrpc/connect';
import { apiError, gone, notFound } from '../../platform/errors/api-error.js';
import type { MediaItem } from '../media-item.js';
import type { MediaItems } from '../media-items.js';
import type { MediaMetrics } from '../media-metrics.js';
import type { BlobStore, ByteRange } from '../storage/blob-store.js';
import type { MediaAccess } from './media-access.js';
import { rangeOf } from './byte-range.js';

export interface Download {
  readonly item: MediaItem;
  /** Set when a range was served (206). */
  readonly range?: ByteRange;
  /** How many bytes `chunks` yields. */
  readonly length: number;
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** 416 with the size the client should ask within (`Content-Range: bytes *\/size`). */
const unsatisfiable = (size: number) =>
  apiError(Code.OutOfRange, 'RANGE_NOT_SATISFIABLE', `The range is outside the ${size} bytes of this media`, [['content-range', `bytes */${size}`]]);

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
    if (caller !== undefined && !(await this.access.mayDownload(caller, item))) throw notFound('No such media');
    if (item.state !== 'stored') throw gone('This media was deleted');
    return item;
  }

  async read(item: MediaItem, rangeHeader: string | null): Promise<Download> {
    const wanted = rangeOf(rangeHeader, item.size);
    if (wanted.kind === 'unsatisfiable') throw unsatisfiable(item.size);
    const range = wanted.kind === 'partial' ? wanted.range : undefined;
    const stream = await this.blobs.read(item._id, range);
    // The sweeper deleted the blob between the item's read and this one.
    if (!stream) throw gone('This media was deleted');
    const length = range ? range.end - range.start + 1 : item.size;
    this.metrics.bytes.inc({ direction: 'download' }, length);
    return { item, length, chunks: stream, ...(range ? { range } : {}) };
  }
}
