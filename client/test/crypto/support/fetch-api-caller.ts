/**
 * A minimal ApiCaller for the tests: fetch with the account's bearer token. (The SDK's real one
 * is the session layer's, with refresh, DPoP and cookies.)
 */
import type { ApiCaller, HttpMethod } from '../../../src/api-caller.js';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${status} ${code}: ${message}`);
  }
}

export class FetchApiCaller implements ApiCaller {
  /** Every request body sent, in order: what the service was given. */
  readonly sent: { method: HttpMethod; path: string; body: unknown }[] = [];

  constructor(
    private readonly baseUrl: string,
    private readonly accessToken: string,
  ) {}

  async call<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    this.sent.push({ method, path, body });
    const response = await fetch(`${this.baseUrl}/api/v1${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.accessToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const parsed = (await response.json()) as T & { code?: string; error?: string };
    if (!response.ok)
      throw new ApiError(response.status, parsed.code ?? '', parsed.error ?? response.statusText);
    return parsed;
  }
}
