/**
 * What both kinds of session share: one authenticated HTTP request to the service, the failure
 * envelope turned into an `ApiError`, one retry after the subclass repaired its credentials
 * (a refreshed token, a re-read CSRF token), and a rate limit waited out. `call` is the
 * `ApiCaller` the feature modules use.
 */
import type { ApiCaller, HttpMethod } from '../api-caller.js';
import { ApiError } from '../api-error.js';

/**
 * How long one request waits out rate limits in all, as the service's `Retry-After` says (spec,
 * "Limits": clients wait at least that). A 429 is decided before the request is acted on, so any
 * request may be sent again unchanged; past this much waiting the 429 is the caller's.
 */
const RATE_LIMIT_PATIENCE_MS = 15_000;

export interface SendOptions {
  readonly body?: BodyInit;
  readonly headers?: Record<string, string>;
}

/** The headers a request went out with, so that a repair can tell whether they are still current. */
export type SentHeaders = Readonly<Record<string, string>>;

export abstract class AuthorizedSession implements ApiCaller {
  constructor(
    /** The service's origin, e.g. `https://chat.example.com`. */
    readonly baseUrl: string,
    private readonly credentialsMode: RequestCredentials,
  ) {}

  /** Headers that authenticate a request with this method. */
  protected abstract authenticate(method: string): Promise<Record<string, string>>;

  /**
   * Called with a refused answer; resolves true when the credentials were repaired and the
   * request should be sent once more. May throw (e.g. `SessionEndedError`).
   */
  protected abstract repair(error: ApiError, sent: SentHeaders): Promise<boolean>;

  async call<T = unknown>(method: HttpMethod, path: string, body?: unknown): Promise<T> {
    const hasQuery = method === 'GET' || method === 'DELETE';
    const target = hasQuery && body !== undefined ? withQuery(path, body) : path;
    const response = await this.send(
      method,
      target,
      hasQuery || body === undefined
        ? {}
        : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } },
    );
    return (await response.json()) as T;
  }

  /** Sends a request under `/api/v1` with the session's credentials; resolves only with a 2xx. */
  async send(method: HttpMethod, path: string, options: SendOptions = {}): Promise<Response> {
    for (let waited = 0; ;) {
      try {
        return await this.sendAuthorized(method, path, options);
      } catch (error) {
        const wait = error instanceof ApiError ? rateLimitWaitMs(error) : undefined;
        // A stream is spent by the first attempt: it cannot be sent again.
        const again = !(options.body instanceof ReadableStream) && wait !== undefined;
        if (!again || waited + wait > RATE_LIMIT_PATIENCE_MS) throw error;
        await new Promise((resolve) => setTimeout(resolve, wait));
        waited += wait;
      }
    }
  }

  private async sendAuthorized(
    method: HttpMethod,
    path: string,
    options: SendOptions,
  ): Promise<Response> {
    const first = await this.attempt(method, path, options);
    if (first.response.ok) return first.response;
    const error = await apiErrorOf(first.response);
    // A stream is spent by the first attempt: it cannot be sent again.
    if (options.body instanceof ReadableStream || !(await this.repair(error, first.sent)))
      throw error;
    const second = await this.attempt(method, path, options);
    if (second.response.ok) return second.response;
    throw await apiErrorOf(second.response);
  }

  private async attempt(method: string, path: string, options: SendOptions) {
    const sent = { ...options.headers, ...(await this.authenticate(method)) };
    const init: RequestInit & { duplex?: 'half' } = {
      method,
      headers: sent,
      credentials: this.credentialsMode,
      ...(options.body === undefined ? {} : { body: options.body }),
      // Node's fetch needs this to send a stream as the body.
      ...(options.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    };
    return { response: await fetchOrError(`${this.baseUrl}/api/v1${path}`, init), sent };
  }
}

/** The wait a 429 asks for, or undefined for any other refusal. */
function rateLimitWaitMs(error: ApiError): number | undefined {
  if (error.status !== 429) return undefined;
  return (error.retryAfterSeconds ?? 1) * 1000;
}

/** `fetch`, with "no answer at all" (offline, connection refused) as an `ApiError` of status 0. */
export async function fetchOrError(url: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init);
  } catch (error) {
    throw new ApiError(0, 'NETWORK_ERROR', `no answer from ${url}: ${String(error)}`);
  }
}

export async function apiErrorOf(response: Response): Promise<ApiError> {
  const text = await response.text();
  let envelope: { code?: unknown; error?: unknown } = {};
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    // Not the envelope (a proxy's page): the status is all there is.
  }
  const retryAfter = Number(response.headers.get('retry-after'));
  return new ApiError(
    response.status,
    typeof envelope.code === 'string' ? envelope.code : `HTTP_${response.status}`,
    typeof envelope.error === 'string' ? envelope.error : text.slice(0, 200),
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : undefined,
  );
}

function withQuery(path: string, fields: unknown): string {
  const query = new URLSearchParams();
  // The JSON of a request message: scalars only on GET and DELETE routes (api-conventions.md).
  for (const [name, value] of Object.entries(fields as Record<string, string | number | boolean>))
    if (value !== '') query.set(name, String(value));
  const text = query.toString();
  return text === '' ? path : `${path}?${text}`;
}
