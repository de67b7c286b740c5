/**
 * A dependency (Redis, the database) cannot answer right now: an outage, not a bug of this
 * request. The RPC pipeline answers it with 503 UNAVAILABLE and Retry-After (gRPC UNAVAILABLE),
 * the realtime tier with close code 4503 or an UNAVAILABLE frame error, and OutageLog reports it
 * once per interval instead of a stack trace per request.
 */
import { Code } from '@connectrpc/connect';
import type { ConnectError } from '@connectrpc/connect';
import { apiError } from './api-error.js';

/** How long a client should wait before retrying: about one reconnect attempt of the client. */
export const OUTAGE_RETRY_AFTER_SECONDS = 2;

export class DependencyUnavailableError extends Error {
  constructor(
    /** Which dependency, as logs and metrics name it (`redis`). */
    readonly dependency: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'DependencyUnavailableError';
  }
}

/** The 503 a client gets for an outage, with Retry-After; nothing of the cause is revealed. */
export function outageError(error: DependencyUnavailableError): ConnectError {
  return apiError(
    Code.Unavailable,
    'UNAVAILABLE',
    `The service is temporarily unavailable (${error.dependency}): retry later`,
    [['retry-after', String(OUTAGE_RETRY_AFTER_SECONDS)]],
  );
}
