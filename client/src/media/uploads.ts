/**
 * Media upload and download (media.proto). Uploads use the streamed binary form: the body goes
 * out as it is read (a `Blob` from a file input is never loaded into script memory; a
 * `ReadableStream` works in Node, and in browsers over HTTP/2), with kind and digest in headers.
 */
import { fromJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import type { UploadMediaResponse } from '../gen/service/v1/media_pb.js';
import { UploadMediaResponseSchema } from '../gen/service/v1/media_pb.js';
import type { AuthorizedSession } from '../session/authorized-session.js';

export type MediaKind = 'image' | 'voice' | 'video' | 'file' | 'avatar' | 'sticker';

export async function uploadMedia(
  session: AuthorizedSession,
  body: Blob | Uint8Array | ReadableStream<Uint8Array>,
  options: { readonly kind: MediaKind; readonly contentType?: string; readonly sha256?: string },
): Promise<UploadMediaResponse> {
  const response = await session.send('POST', '/upload-media', {
    body: body as BodyInit,
    headers: {
      'content-type': options.contentType ?? 'application/octet-stream',
      'x-media-kind': options.kind,
      ...(options.sha256 ? { 'x-media-sha256': options.sha256 } : {}),
    },
  });
  return fromJson(UploadMediaResponseSchema, (await response.json()) as JsonValue, {
    ignoreUnknownFields: true,
  });
}

export async function downloadMedia(
  session: AuthorizedSession,
  mediaId: string,
): Promise<Uint8Array> {
  const response = await session.send('GET', `/media/${encodeURIComponent(mediaId)}`);
  return new Uint8Array(await response.arrayBuffer());
}
