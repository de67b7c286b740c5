/**
 * A refusal by the service, in its documented failure envelope
 * (`{success: false, error, code}`, docs/api-conventions.md), or a response that was not one.
 */
export class ApiError extends Error {
  override readonly name: string = 'ApiError';

  constructor(
    /** The HTTP status (0 when the request never got an answer). */
    readonly status: number,
    /** The machine reason, e.g. `UNAUTHORIZED`, `REPLAY_DETECTED`, `CSRF_TOKEN_INVALID`. */
    readonly code: string,
    message: string,
    /** Seconds to wait before trying again, from `Retry-After`, when the service said so. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
  }

  /** Whether the same request may succeed later unchanged (rate limit, unavailable, no answer). */
  get retryable(): boolean {
    return this.status === 0 || this.status === 429 || this.status === 503 || this.status === 502;
  }
}

/**
 * The session cannot continue: it was ended (logout elsewhere, revoked, pushed out) or its
 * refresh-token family was revoked because a used refresh token was presented again (a sign
 * that the token was copied). The application signs in again.
 */
export class SessionEndedError extends ApiError {
  override readonly name = 'SessionEndedError';
}
