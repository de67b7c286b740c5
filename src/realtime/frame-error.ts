/** A refused client frame: answered with an `error` frame naming the frame's `id`; the connection stays open. */
export class FrameError extends Error {
  constructor(
    readonly code: string,
    message: string,
    /** Seconds to wait before retrying, for rate limits that waiting will lift. */
    readonly retryAfterSeconds: number | null = null,
  ) {
    super(message);
  }
}
