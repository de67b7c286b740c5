/**
 * `304 Not Modified` for a raw-body (google.api.HttpBody) answer whose `ETag` the request's
 * `If-None-Match` matches (RFC 9110, section 13.1.2): done here, once, for every route that
 * serves bytes with an ETag (media, avatars, sticker images). It is decided on the service's
 * successful answer, so the service's access rule has already run: a caller who may not read
 * the bytes gets the service's 401/404, never a 304 that would confirm the ETag.
 */
import type { SizedStream } from '../../server/http-message.js';
import { ifNoneMatchMatches } from '../../server/http-preconditions.js';

/** Headers of the body itself, which a 304 has none of (section 15.4.5). */
const BODY_HEADERS = new Set(['content-range', 'content-length', 'content-type']);

/**
 * The headers of a 304 in place of this answer (ETag, Cache-Control, Vary and the rest kept,
 * the body's own dropped), or undefined when the answer stands.
 */
export function notModifiedHeaders(
  method: string,
  ifNoneMatch: string | undefined,
  headers: readonly [string, string][],
): [string, string][] | undefined {
  // Only a GET or HEAD turns into a 304; any other method would get 412 (none serves bytes).
  if (method !== 'GET' && method !== 'HEAD') return undefined;
  const etag = headers.find(([name]) => name.toLowerCase() === 'etag')?.[1];
  if (etag === undefined || !ifNoneMatchMatches(ifNoneMatch, etag)) return undefined;
  return headers.filter(([name]) => !BODY_HEADERS.has(name.toLowerCase()));
}

/** Stops a body stream that will not be sent (its blob read is closed). */
export function discard(stream: SizedStream | undefined): void {
  const iterator = stream?.chunks[Symbol.asyncIterator]();
  void iterator?.return?.().catch(() => undefined);
}
