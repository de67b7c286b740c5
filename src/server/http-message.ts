import { STATUS_CODES } from 'node:http';
import type { Logger } from '../platform/logging/logger.js';

/** A request read by the HTTP server (completely, unless its route streams the body), as route handlers receive it. */
export interface IncomingRequest {
  readonly method: string;
  /** Raw (percent-encoded) path without the query string. */
  readonly path: string;
  readonly query: string;
  /** Lower-case header names. */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Uint8Array | undefined;
  /** The body as it arrives, for routes that stream it (then `body` is undefined). */
  readonly bodyStream?: AsyncIterable<Uint8Array>;
  readonly clientIp: string;
  readonly requestId: string;
  /** The process logger; handlers bind the request id themselves when they log. */
  readonly logger: Logger;
}

/** A response body of known length, read as it is sent. */
export interface SizedStream {
  readonly length: number;
  readonly chunks: AsyncIterable<Uint8Array>;
}

/** A complete HTTP response, produced by a route handler and written by the server. */
export interface HttpResponseData {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string | Uint8Array;
  /** A body of known length written as it is read (media downloads); `body` is then empty. */
  readonly stream?: SizedStream;
  /** End the connection after this response. */
  readonly closeConnection?: boolean;
}

/**
 * A response with the route template that produced it (`unmatched` when none), for metrics, and
 * the W3C `traceparent` of its server span when the request was traced, for the access log.
 */
export type RoutedResponse = HttpResponseData & {
  readonly routeLabel: string;
  readonly traceparent?: string;
};

const STATUS_LINES = new Map<number, string>();

export function statusLine(status: number): string {
  let line = STATUS_LINES.get(status);
  if (!line) STATUS_LINES.set(status, (line = `${status} ${STATUS_CODES[status] ?? 'Unknown'}`));
  return line;
}

export function jsonResponse(
  status: number,
  value: unknown,
  headers: readonly (readonly [string, string])[] = [],
): HttpResponseData {
  return {
    status,
    headers: [...headers, ['Content-Type', 'application/json']],
    body: JSON.stringify(value),
  };
}
