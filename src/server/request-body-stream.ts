/**
 * A request body handed on as it arrives instead of read into memory (media uploads): uWS
 * pushes chunks, the handler pulls them. At most a few chunks wait in between: past that the
 * socket is paused (`res.pause()`) until the handler has taken them, so a slow store slows the
 * client down rather than filling the process's memory. Passing `limit` bytes, or the client
 * going away, fails the stream; the reader's `for await` then throws.
 */
import { Code } from '@connectrpc/connect';
import type { HttpResponse } from 'uWebSockets.js';
import { apiError } from '../platform/errors/api-error.js';

/** Chunks queued before the socket is paused (uWS hands up to 512 KiB at a time). */
const HIGH_WATER_CHUNKS = 4;

/** 413, rendered like every service error (the stream's reader is a service). */
const bodyTooLarge = (limit: number) =>
  apiError(Code.InvalidArgument, 'PAYLOAD_TOO_LARGE', `The request body exceeds ${limit} bytes`);

export class RequestBodyStream implements AsyncIterable<Uint8Array> {
  private readonly queue: Buffer[] = [];
  private received = 0;
  private ended = false;
  private failure: Error | undefined;
  private paused = false;
  private aborted = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly res: HttpResponse,
    private readonly limit: number,
  ) {
    res.onData((chunk, isLast) => this.push(chunk, isLast));
  }

  /** Whether the whole body was received (else the connection must close after the answer). */
  get complete(): boolean {
    return this.ended && this.failure === undefined;
  }

  /** The client went away: readers fail. */
  abort(): void {
    this.aborted = true;
    this.fail(new Error('The client closed the connection during the upload'));
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    for (;;) {
      const next = this.queue.shift();
      if (next) {
        if (this.paused && this.queue.length < HIGH_WATER_CHUNKS) {
          this.paused = false;
          // A socket that is gone cannot be resumed.
          if (!this.aborted) this.res.resume();
        }
        yield next;
        continue;
      }
      if (this.failure) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private push(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.ended || this.failure) return;
    this.received += chunk.byteLength;
    if (this.received > this.limit) {
      this.fail(bodyTooLarge(this.limit));
      return;
    }
    // uWS reuses the chunk's memory after this callback: copy it.
    if (chunk.byteLength > 0) this.queue.push(Buffer.from(new Uint8Array(chunk)));
    if (isLast) this.ended = true;
    else if (!this.paused && this.queue.length >= HIGH_WATER_CHUNKS) {
      this.paused = true;
      this.res.pause();
    }
    this.notify();
  }

  private fail(error: Error): void {
    if (this.ended && this.queue.length === 0) return;
    this.failure = error;
    this.queue.length = 0;
    this.notify();
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
