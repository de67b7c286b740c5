/**
 * The browser session's two cookies: the session cookie (HttpOnly: scripts never see it) and
 * the CSRF cookie (readable by the page's script, which echoes it in `X-CSRF-Token`).
 */
import { parseCookie, stringifySetCookie } from 'cookie';
import type { HandlerContext } from '@connectrpc/connect';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../platform/api/cookie-names.js';
import { requestHeaderOf } from '../../platform/rpc/request-header.js';

export interface CookiePolicy {
  /** Off only for plain-HTTP development on a non-localhost host. */
  readonly secure: boolean;
  readonly sameSite: 'strict' | 'lax';
  /** Max-Age of both cookies: the session's sliding lifetime. */
  readonly maxAgeSeconds: number;
}

export function readCookie(context: HandlerContext, name: string): string | undefined {
  const header = requestHeaderOf(context, 'cookie');
  return header ? parseCookie(header)[name] : undefined;
}

export function setSessionCookies(
  context: HandlerContext,
  policy: CookiePolicy,
  cookieValue: string,
  csrfToken: string,
): void {
  context.responseHeader.append(
    'set-cookie',
    sessionCookie(policy, cookieValue, policy.maxAgeSeconds),
  );
  setCsrfCookie(context, policy, csrfToken);
}

export function setCsrfCookie(
  context: HandlerContext,
  policy: CookiePolicy,
  csrfToken: string,
): void {
  context.responseHeader.append(
    'set-cookie',
    stringifySetCookie(CSRF_COOKIE, csrfToken, {
      path: '/',
      secure: policy.secure,
      sameSite: policy.sameSite,
      maxAge: policy.maxAgeSeconds,
    }),
  );
}

export function clearSessionCookies(context: HandlerContext, policy: CookiePolicy): void {
  context.responseHeader.append('set-cookie', sessionCookie(policy, '', 0));
  context.responseHeader.append(
    'set-cookie',
    stringifySetCookie(CSRF_COOKIE, '', {
      path: '/',
      secure: policy.secure,
      sameSite: policy.sameSite,
      maxAge: 0,
    }),
  );
}

function sessionCookie(policy: CookiePolicy, value: string, maxAge: number): string {
  return stringifySetCookie(SESSION_COOKIE, value, {
    path: '/',
    httpOnly: true,
    secure: policy.secure,
    sameSite: policy.sameSite,
    maxAge,
  });
}
