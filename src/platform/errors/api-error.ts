/**
 * Errors raised by services. They are Connect errors, so native gRPC clients see a proper
 * status code, carrying a machine reason (the spec's `code`, e.g. `REPLAY_DETECTED`) in the
 * `x-error-code` metadata entry. The REST edge renders them as the spec's failure envelope.
 */
import { Code, ConnectError } from '@connectrpc/connect';

export const ERROR_CODE_HEADER = 'x-error-code';
/** Set on per-endpoint rate-limit errors, whose REST body the spec gives its own shape. */
export const RATE_LIMIT_BODY_HEADER = 'x-rate-limit-body';
/** Set by the edge layers that render an HTTP status the gRPC code cannot express (410, 428). */
export const HTTP_STATUS_HEADER = 'x-http-status';
/**
 * Set on errors whose REST body also carries the text as `message`: where the spec gives a
 * failure the success envelope's shape (the key-bundle 404: `success` false and a `message`).
 */
export const ENVELOPE_MESSAGE_HEADER = 'x-envelope-message';

/** Reasons whose HTTP status differs from the default of their gRPC code. */
const STATUS_BY_REASON: Readonly<Record<string, number>> = {
  METHOD_NOT_ALLOWED: 405,
  UNSUPPORTED_API_VERSION: 406,
  GONE: 410,
  CHALLENGE_REQUIRED: 428,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RANGE_NOT_SATISFIABLE: 416,
};

export function apiError(
  code: Code,
  reason: string,
  message: string,
  metadata?: ConstructorParameters<typeof Headers>[0],
): ConnectError {
  const headers = new Headers(metadata);
  headers.set(ERROR_CODE_HEADER, reason);
  const status = STATUS_BY_REASON[reason];
  if (status !== undefined) headers.set(HTTP_STATUS_HEADER, String(status));
  return new ConnectError(message, code, headers);
}

export const invalidArgument = (message: string, reason = 'INVALID_ARGUMENT') =>
  apiError(Code.InvalidArgument, reason, message);
export const unauthenticated = (message: string, reason = 'UNAUTHORIZED') =>
  apiError(Code.Unauthenticated, reason, message);
export const permissionDenied = (message: string, reason = 'FORBIDDEN') =>
  apiError(Code.PermissionDenied, reason, message);
export const notFound = (message: string, reason = 'NOT_FOUND') =>
  apiError(Code.NotFound, reason, message);
/** A 404 whose body has the success envelope's `message` too (see ENVELOPE_MESSAGE_HEADER). */
export const notFoundWithMessage = (message: string) =>
  apiError(Code.NotFound, 'NOT_FOUND', message, [[ENVELOPE_MESSAGE_HEADER, 'true']]);
export const conflict = (message: string, reason = 'CONFLICT') =>
  apiError(Code.AlreadyExists, reason, message);
/** The resource existed but is gone for good (HTTP 410): a viewed view-once message, a retired version. */
export const gone = (message: string) => apiError(Code.FailedPrecondition, 'GONE', message);
export const unavailable = (message: string, reason = 'UNAVAILABLE') =>
  apiError(Code.Unavailable, reason, message);
export const notImplemented = (message: string) =>
  apiError(Code.Unimplemented, 'NOT_IMPLEMENTED', message);

/** A refused token bucket: 429 with the spec's headers (Retry-After, X-RateLimit-Limit, X-RateLimit-Window). */
export function rateLimited(
  limit: number,
  windowMs: number,
  retryAfterMs: number,
  perEndpoint: boolean,
): ConnectError {
  const window =
    windowMs % 3_600_000 === 0 ? `${windowMs / 3_600_000}h` : `${Math.round(windowMs / 1000)}s`;
  const headers: [string, string][] = [
    ['retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000)))],
    ['x-ratelimit-limit', String(limit)],
    ['x-ratelimit-window', window],
  ];
  if (perEndpoint) headers.push([RATE_LIMIT_BODY_HEADER, 'endpoint']);
  return apiError(Code.ResourceExhausted, 'RATE_LIMIT_EXCEEDED', 'Rate limit exceeded', headers);
}

/** The target is locked out after repeated failures: 429 with Retry-After. */
export function lockedOut(retryAfterMs: number): ConnectError {
  return apiError(
    Code.ResourceExhausted,
    'LOCKED_OUT',
    'Too many failed attempts: locked for a while',
    [['retry-after', String(Math.max(1, Math.ceil(retryAfterMs / 1000)))]],
  );
}
