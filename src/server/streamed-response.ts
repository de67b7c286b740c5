/**
 * Writes a response whose body arrives as a stream of known length (media downloads) without
 * holding it: each chunk goes out with `tryEnd` (so uWS sends `Content-Length`, not chunked
 * encoding); when the socket's buffer is full the next chunk waits for `onWritable`, so a slow
 * client slows the read from storage instead of filling memory. A client that goes away stops
 * the read (the source's iterator is closed).
 */
import type { HttpResponse } from 'uWebSockets.js';
import type { HttpResponseData, SizedStream } from './http-message.js';
import { statusLine } from './http-message.js';

export async function writeStreamedResponse(
  res: HttpResponse,
  response: HttpResponseData,
  stream: SizedStream,
  requestId: string,
  isAborted: () => boolean,
): Promise<void> {
  res.cork(() => {
    res.writeStatus(statusLine(response.status));
    res.writeHeader('X-Request-Id', requestId);
    for (const [name, value] of response.headers) res.writeHeader(name, value);
  });
  for await (const chunk of stream.chunks) {
    if (isAborted()) return;
    // uWS sends from the view itself (no copy, issue #29), and may send only part of it now.
    const startOffset = res.getWriteOffset();
    let ok = false;
    let done = false;
    res.cork(() => ([ok, done] = res.tryEnd(chunk, stream.length)));
    if (done) return;
    if (!ok && !(await drained(res, chunk, startOffset, stream.length, isAborted))) return;
  }
}

/** Resolves true once the rest of `data` went out, false when the response ended or the client left. */
function drained(
  res: HttpResponse,
  data: Uint8Array,
  startOffset: number,
  total: number,
  isAborted: () => boolean,
): Promise<boolean> {
  return new Promise((resolve) => {
    const check = setInterval(() => {
      if (!isAborted()) return;
      clearInterval(check);
      resolve(false);
    }, 1000);
    res.onWritable((offset) => {
      const [ok, done] = res.tryEnd(data.subarray(offset - startOffset), total);
      if (ok || done) {
        clearInterval(check);
        resolve(ok && !done);
      }
      return ok;
    });
  });
}
