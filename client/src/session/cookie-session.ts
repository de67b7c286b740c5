/**
 * A browser session held by the service's cookies: the session cookie is HttpOnly (no script,
 * this SDK included, ever sees it) and SameSite, and every unsafe request carries the CSRF
 * token in `X-CSRF-Token`, read from the CSRF cookie the service sets (double submit). A 403
 * `CSRF_TOKEN_INVALID` (the token was rotated in another tab) re-reads the cookie and tries
 * once more; a 401 means the session is over.
 */
import { fromJson } from '@bufbuild/protobuf';
import type { JsonValue } from '@bufbuild/protobuf';
import type { ApiError } from '../api-error.js';
import type { AuthUser } from '../gen/service/v1/auth_pb.js';
import { GetCurrentSessionResponseSchema } from '../gen/service/v1/session_pb.js';
import { SessionEndedError } from '../api-error.js';
import { AuthorizedSession } from './authorized-session.js';
import type { SentHeaders } from './authorized-session.js';

/** The CSRF cookie's name (src/platform/api/cookie-names.ts). */
export const CSRF_COOKIE = 'svc_csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The CSRF cookie's value in this document, if any. */
export function csrfCookie(
  cookies: string = globalThis.document?.cookie ?? '',
): string | undefined {
  for (const pair of cookies.split(';')) {
    const [name, ...value] = pair.trim().split('=');
    if (name === CSRF_COOKIE) return decodeURIComponent(value.join('='));
  }
  return undefined;
}

export class CookieSession extends AuthorizedSession {
  constructor(
    baseUrl: string,
    private csrfToken: string,
  ) {
    super(baseUrl, 'include');
  }

  /**
   * The session the browser already holds (after a reload), or undefined when there is none:
   * `GET /api/v1/session/me` answers only to a live session cookie. Without the CSRF cookie
   * (set and cleared with the session cookie) there is no session to ask about, and no request
   * is spent on a first visit.
   */
  static async resume(
    baseUrl: string,
  ): Promise<{ session: CookieSession; user: AuthUser } | undefined> {
    const token = csrfCookie();
    if (token === undefined) return undefined;
    const response = await fetch(`${baseUrl}/api/v1/session/me`, { credentials: 'include' });
    if (!response.ok) return undefined;
    const body = fromJson(GetCurrentSessionResponseSchema, (await response.json()) as JsonValue, {
      ignoreUnknownFields: true,
    });
    return { session: new CookieSession(baseUrl, token), user: body.user! };
  }

  protected async authenticate(method: string): Promise<Record<string, string>> {
    return SAFE_METHODS.has(method) ? {} : { 'x-csrf-token': this.csrfToken };
  }

  protected async repair(error: ApiError, sent: SentHeaders): Promise<boolean> {
    if (error.status === 401) throw new SessionEndedError(401, error.code, error.message);
    if (error.code !== 'CSRF_TOKEN_INVALID') return false;
    const token = csrfCookie();
    if (token === undefined || token === sent['x-csrf-token']) return false;
    this.csrfToken = token;
    return true;
  }

  /** Ends the session: the service clears both cookies. */
  async logout(): Promise<void> {
    await this.call('POST', '/auth/session/logout', {});
  }
}
