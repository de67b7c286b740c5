import { STATUS_CODES } from 'node:http';

/** A complete HTTP response, produced by a route handler and written by the server. */
export interface HttpResponseData {
  readonly status: number;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: string | Uint8Array;
  /** End the connection after this response. */
  readonly closeConnection?: boolean;
}

export function statusLine(status: number): string {
  return `${status} ${STATUS_CODES[status] ?? 'Unknown'}`;
}

export function jsonResponse(status: number, value: unknown, headers: readonly (readonly [string, string])[] = []): HttpResponseData {
  return { status, headers: [...headers, ['Content-Type', 'application/json']], body: JSON.stringify(value) };
}
