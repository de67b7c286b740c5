/**
 * How a service error becomes an HTTP response: the status of its gRPC code (or of its reason,
 * for statuses no gRPC code expresses) and the spec's failure envelope.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import {
  ENVELOPE_MESSAGE_HEADER,
  ERROR_CODE_HEADER,
  HTTP_STATUS_HEADER,
  RATE_LIMIT_BODY_HEADER,
} from './api-error.js';

const STATUS_BY_CODE: Readonly<Partial<Record<Code, number>>> = {
  [Code.Canceled]: 499,
  [Code.InvalidArgument]: 400,
  [Code.DeadlineExceeded]: 504,
  [Code.NotFound]: 404,
  [Code.AlreadyExists]: 409,
  [Code.PermissionDenied]: 403,
  [Code.ResourceExhausted]: 429,
  [Code.FailedPrecondition]: 400,
  [Code.Aborted]: 409,
  [Code.OutOfRange]: 400,
  [Code.Unimplemented]: 501,
  [Code.Unavailable]: 503,
  [Code.Unauthenticated]: 401,
};

const DEFAULT_REASON: Readonly<Partial<Record<Code, string>>> = {
  [Code.InvalidArgument]: 'INVALID_ARGUMENT',
  [Code.NotFound]: 'NOT_FOUND',
  [Code.AlreadyExists]: 'CONFLICT',
  [Code.PermissionDenied]: 'FORBIDDEN',
  [Code.ResourceExhausted]: 'RATE_LIMIT_EXCEEDED',
  [Code.Unimplemented]: 'NOT_IMPLEMENTED',
  [Code.Unavailable]: 'UNAVAILABLE',
  [Code.Unauthenticated]: 'UNAUTHORIZED',
};

export interface ErrorEnvelope {
  success: false;
  error: string;
  code?: string;
  /** Per-endpoint rate limits (spec, "Errors"): the text, the wait and the bucket; and the errors that carry the success envelope's `message`. */
  message?: string;
  retry_after?: number;
  limit?: number;
  window?: string;
}

export interface RenderedError {
  status: number;
  body: ErrorEnvelope;
  /** Response headers the error asks for (e.g. Retry-After), minus internal ones. */
  headers: [string, string][];
}

/** Renders any thrown value; anything that is not a ConnectError is an opaque 500. */
export function renderError(error: unknown): RenderedError {
  if (!(error instanceof ConnectError)) {
    return {
      status: 500,
      body: { success: false, error: 'Internal server error', code: 'INTERNAL' },
      headers: [],
    };
  }
  const explicit = Number(error.metadata.get(HTTP_STATUS_HEADER));
  const status =
    explicit >= 400 && explicit <= 599 ? explicit : (STATUS_BY_CODE[error.code] ?? 500);
  const reason = error.metadata.get(ERROR_CODE_HEADER) ?? DEFAULT_REASON[error.code] ?? 'INTERNAL';
  // Internal errors never reveal their message to clients.
  const text =
    status >= 500 && status !== 501 && status !== 503 ? 'Internal server error' : error.rawMessage;
  const headers: [string, string][] = [];
  error.metadata.forEach((value, key) => {
    if (
      key !== ERROR_CODE_HEADER &&
      key !== HTTP_STATUS_HEADER &&
      key !== RATE_LIMIT_BODY_HEADER &&
      key !== ENVELOPE_MESSAGE_HEADER
    )
      headers.push([key, value]);
  });
  const body: ErrorEnvelope = { success: false, error: text, code: reason };
  if (error.metadata.has(ENVELOPE_MESSAGE_HEADER)) body.message = text;
  if (error.metadata.get(RATE_LIMIT_BODY_HEADER) === 'endpoint') {
    const retryAfter = Number(error.metadata.get('retry-after'));
    body.message = `Too many requests to this endpoint: retry after ${retryAfter} s`;
    body.retry_after = retryAfter;
    body.limit = Number(error.metadata.get('x-ratelimit-limit'));
    body.window = error.metadata.get('x-ratelimit-window') ?? '';
  }
  return { status, body, headers };
}
