/**
 * MediaService (media.proto): uploads (JSON, or a raw body streamed into the blob store, which
 * the REST gateway hands over in the context values), downloads with ranges, and the public
 * avatars, each also as its thumbnail (`size=thumbnail`). Downloads answer a `google.api.HttpBody`; the REST gateway sends its bytes as they
 * are, with the headers set here (`ETag` is the SHA-256, `Content-Range` marks a partial answer).
 * `If-Range` is evaluated here (it decides which bytes are read); `If-None-Match` by the gateway.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  GetAvatarRequest,
  GetMediaRequest,
  UploadMediaRequest,
} from '../gen/service/v1/media_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import { streamedBodyKey, streamedResponseKey } from '../platform/rpc/streamed-body.js';
import { ifNoneMatchMatches, ifRangeAllowsRange } from '../server/http-preconditions.js';
import type { Avatars } from './avatars.js';
import { renditionOf, servedBlob } from './downloads/downloads.js';
import type { Downloads, Rendition } from './downloads/downloads.js';
import type { MediaItem } from './media-item.js';
import { rulesOf } from './media-kinds.js';
import { checkDescription, tooLarge } from './uploads/uploads.js';
import type { Uploads } from './uploads/uploads.js';

export interface MediaServiceDependencies {
  readonly uploads: Uploads;
  readonly downloads: Downloads;
  readonly avatars: Avatars;
}

/** Avatars change rarely and are public: caches may keep them a few minutes. */
const AVATAR_CACHE = 'public, max-age=300';
/** A media id's bytes never change, but access to them can end: only the client keeps them. */
const MEDIA_CACHE = 'private, max-age=3600';

export function uploadedView(item: MediaItem) {
  return {
    success: true,
    message: 'Media uploaded',
    mediaId: item._id,
    kind: item.kind,
    contentType: item.contentType,
    size: item.size,
    sha256: item.sha256,
    createdAt: item.createdAt.toISOString(),
  };
}

export function createMediaService({ uploads, downloads, avatars }: MediaServiceDependencies) {
  /**
   * The body and headers of a download; a range is marked by Content-Range (the gateway answers
   * 206). Over REST the bytes are left to the gateway to stream; over gRPC they go in the message.
   * Called after the access rule, so the preconditions below never answer for a hidden item.
   */
  const served = async (
    item: MediaItem,
    rendition: Rendition,
    context: HandlerContext,
    cacheControl: string,
  ) => {
    const blob = servedBlob(item, rendition);
    const etag = `"${blob.sha256}"`;
    const headers = context.responseHeader;
    headers.set('etag', etag);
    headers.set('accept-ranges', 'bytes');
    headers.set('cache-control', cacheControl);
    const asked = context.requestHeader;
    const streamed = context.values.get(streamedResponseKey);
    // Over REST the gateway turns this answer into a 304 (not-modified.ts): no blob is opened
    // for it. gRPC has no 304, so there the bytes are sent whatever the header says.
    if (streamed && ifNoneMatchMatches(asked.get('if-none-match'), etag))
      return { contentType: blob.contentType, data: new Uint8Array() };
    // A resumed download whose If-Range names other (or possibly other) bytes restarts whole.
    const range = ifRangeAllowsRange(asked.get('if-range'), etag) ? asked.get('range') : null;
    const download = await downloads.read(blob, range);
    if (download.range)
      headers.set(
        'content-range',
        `bytes ${download.range.start}-${download.range.end}/${download.blob.size}`,
      );
    if (streamed) {
      streamed.body = { length: download.length, chunks: download.chunks };
      return { contentType: download.blob.contentType, data: new Uint8Array() };
    }
    const chunks: Buffer[] = [];
    for await (const chunk of download.chunks) chunks.push(Buffer.from(chunk));
    return { contentType: download.blob.contentType, data: Buffer.concat(chunks) };
  };

  return {
    async uploadMedia(request: UploadMediaRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const streamed = context.values.get(streamedBodyKey);
      if (streamed) {
        const headers = context.requestHeader;
        const description = checkDescription({
          kind: request.kind || (headers.get('x-media-kind') ?? ''),
          contentType: streamed.contentType,
          sha256: request.sha256 || (headers.get('x-media-sha256') ?? ''),
        });
        const { maxBytes } = rulesOf(description.kind);
        // Refused before a byte is read; a body that grows past the limit is refused by the blob store.
        if (streamed.declaredLength !== undefined && streamed.declaredLength > maxBytes)
          throw tooLarge(maxBytes);
        return uploadedView(await uploads.upload(caller, description, streamed.chunks));
      }
      const description = checkDescription(request);
      const { maxBytes } = rulesOf(description.kind);
      if (request.data.length === 0) throw invalidArgument('data must not be empty');
      if (request.data.length > maxBytes)
        throw invalidArgument(
          `data must be at most ${maxBytes} bytes for kind ${description.kind}`,
        );
      return uploadedView(await uploads.upload(caller, description, [request.data]));
    },

    async getMedia(request: GetMediaRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const rendition = renditionOf(request.size);
      const item = await downloads.downloadable(request.mediaId, caller);
      return served(item, rendition, context, MEDIA_CACHE);
    },

    async getAvatar(request: GetAvatarRequest, context: HandlerContext) {
      const rendition = renditionOf(request.size);
      const item = isWalletAddress(request.address)
        ? await avatars.current(request.address.toLowerCase())
        : undefined;
      if (!item) throw notFound('This user has no avatar');
      return served(item, rendition, context, AVATAR_CACHE);
    },
  };
}
