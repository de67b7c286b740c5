/**
 * Helpers of the token and session end-to-end tests (test/identity/sessions/): a small JSON
 * client over real HTTP, the failure-envelope assertion, the two ways a caller authenticates
 * (Bearer access token, session cookie plus CSRF token) and the cookies a response sets.
 */
import type { SignedIn, TestUser } from './wallet.js';
import { signIn } from './wallet.js';
import type { Json } from './json.js';
import { requestDeadline } from './request-timeout.js';

/** A response: status, parsed JSON body (undefined when there is none) and headers. */
export interface Reply {
  readonly status: number;
  readonly body: Json;
  readonly headers: Headers;
}

export type HeaderMap = Record<string, string>;

export class Api {
  /** `baseUrl` may be read at each call, for a service that is not started yet (service-for-tests.ts). */
  constructor(private readonly base: string | (() => string)) {}

  get baseUrl(): string {
    return typeof this.base === 'string' ? this.base : this.base();
  }

  url(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  async call(
    method: string,
    path: string,
    options: { body?: unknown; headers?: HeaderMap } = {},
  ): Promise<Reply> {
    const hasBody = options.body !== undefined;
    const response = await fetch(this.url(path), {
      method,
      signal: requestDeadline(),
      headers: { ...(hasBody ? { 'content-type': 'application/json' } : {}), ...options.headers },
      ...(hasBody ? { body: JSON.stringify(options.body) } : {}),
    }).catch((error: unknown) => {
      throw new Error(`${method} ${path}: ${(error as Error).message}`, { cause: error });
    });
    const text = await response.text();
    return {
      status: response.status,
      body: text === '' ? undefined : JSON.parse(text),
      headers: response.headers,
    };
  }

  get(path: string, headers: HeaderMap = {}): Promise<Reply> {
    return this.call('GET', path, { headers });
  }

  post(path: string, body: unknown = {}, headers: HeaderMap = {}): Promise<Reply> {
    return this.call('POST', path, { body, headers });
  }

  delete(path: string, headers: HeaderMap = {}): Promise<Reply> {
    return this.call('DELETE', path, { headers });
  }

  /** POST /api/v1/auth/refresh. */
  refresh(refreshToken: string, headers: HeaderMap = {}): Promise<Reply> {
    return this.post('/api/v1/auth/refresh', { refresh_token: refreshToken }, headers);
  }

  /** GET /api/v1/auth/sessions with an access token: the probe of whether a token is accepted. */
  listSessions(accessToken: string): Promise<Reply> {
    return this.get('/api/v1/auth/sessions', { authorization: `Bearer ${accessToken}` });
  }
}

/** Asserts the exact status and the failure envelope `{success: false, error, code}`. */
export function expectFailure(reply: Reply, status: number, code: string): void {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status,
    body: { success: false, error: expect.any(String), code },
  });
}

/** Asserts a 200 with `success: true`; returns the body. */
export function expectOk(reply: Reply): Json {
  expect({ status: reply.status, success: reply.body?.success }).toEqual({
    status: 200,
    success: true,
  });
  return reply.body;
}

/** The access token is accepted (GET /api/v1/auth/sessions answers 200). */
export async function expectAccessAccepted(api: Api, accessToken: string): Promise<void> {
  expectOk(await api.listSessions(accessToken));
}

/** The access token is refused with 401 UNAUTHORIZED. */
export async function expectAccessRefused(api: Api, accessToken: string): Promise<void> {
  expectFailure(await api.listSessions(accessToken), 401, 'UNAUTHORIZED');
}

/** The refresh token is refused with 401 UNAUTHORIZED (the session has ended). */
export async function expectRefreshRefused(api: Api, refreshToken: string): Promise<void> {
  expectFailure(await api.refresh(refreshToken), 401, 'UNAUTHORIZED');
}

/** The session is over: its access token and its refresh token are both refused. */
export async function expectSessionEnded(
  api: Api,
  session: Pick<SignedIn, 'accessToken' | 'refreshToken'>,
): Promise<void> {
  await expectAccessRefused(api, session.accessToken);
  await expectRefreshRefused(api, session.refreshToken);
}

/** The request headers of a cookie-session call: the cookies, and the CSRF header when given. */
export function cookieAuth(
  cookies: { session: string; csrf?: string },
  csrfHeader?: string,
): HeaderMap {
  const pairs = [
    `svc_session=${cookies.session}`,
    ...(cookies.csrf === undefined ? [] : [`svc_csrf=${cookies.csrf}`]),
  ];
  return {
    cookie: pairs.join('; '),
    ...(csrfHeader === undefined ? {} : { 'x-csrf-token': csrfHeader }),
  };
}

/** The cookies of a signed-in session, as `cookieAuth` takes them. */
export const sessionCookies = (session: SignedIn) => ({
  session: session.cookies.svc_session!,
  csrf: session.cookies.svc_csrf!,
});

export interface SetCookie {
  readonly value: string;
  /** Attribute names lowercased; `max-age` and the like with their value, flags with ''. */
  readonly attributes: Record<string, string>;
}

/** The cookies a response sets, by name. */
export function setCookiesOf(reply: Reply): Record<string, SetCookie> {
  const cookies: Record<string, SetCookie> = {};
  for (const line of reply.headers.getSetCookie()) {
    const [pair, ...attributeParts] = line.split(';').map((part) => part.trim());
    const separator = pair!.indexOf('=');
    const attributes: Record<string, string> = {};
    for (const part of attributeParts) {
      const equals = part.indexOf('=');
      attributes[(equals < 0 ? part : part.slice(0, equals)).toLowerCase()] =
        equals < 0 ? '' : part.slice(equals + 1);
    }
    cookies[pair!.slice(0, separator)] = { value: pair!.slice(separator + 1), attributes };
  }
  return cookies;
}

let lastSignInAt = 0;

/**
 * Signs an existing user in once more (a new session). The sign-in message carries a
 * millisecond timestamp and the signature is deterministic, so two sign-ins within one
 * millisecond would be one signature, refused as a replay: wait for the clock to move on.
 */
export async function signInAgain(
  baseUrl: string,
  user: TestUser,
  headers: HeaderMap = {},
): Promise<SignedIn> {
  while (Date.now() <= lastSignInAt) await sleep(1);
  try {
    return await signIn(baseUrl, user, 'sign-in', headers);
  } finally {
    lastSignInAt = Date.now();
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
