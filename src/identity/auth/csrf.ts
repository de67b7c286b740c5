/**
 * The CSRF rule of cookie sessions (double submit, bound to the session): an unsafe call
 * authenticated by the session cookie must carry the session's CSRF token in `X-CSRF-Token`,
 * equal to the CSRF cookie. A refusal is `403` with its own reason, `CSRF_TOKEN_INVALID`, so a
 * client knows to take the current token from the CSRF cookie (or sign in again) rather than
 * treat it as a missing permission. The OpenAPI document lists it from the same rule.
 */
import type { HandlerContext } from '@connectrpc/connect';
import { CSRF_COOKIE } from '../../platform/api/cookie-names.js';
import { permissionDenied } from '../../platform/errors/api-error.js';
import { requestHeaderOf } from '../../platform/rpc/request-header.js';
import { matchesHash } from '../../platform/secrets/session-secrets.js';
import { readCookie } from './cookies.js';

export const CSRF_TOKEN_INVALID = 'CSRF_TOKEN_INVALID';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Whether a cookie-authenticated call with this HTTP method needs the CSRF token (gRPC calls are POSTs). */
export const csrfTokenRequired = (httpMethod: string): boolean =>
  !SAFE_METHODS.has(httpMethod.toUpperCase());

/** Throws the 403 unless the header equals the cookie and the session's token. */
export function checkCsrfToken(context: HandlerContext, csrfTokenHash: string): void {
  const header = requestHeaderOf(context, 'x-csrf-token');
  const cookie = readCookie(context, CSRF_COOKIE);
  if (!header || header !== cookie || !matchesHash(header, csrfTokenHash)) {
    throw permissionDenied(
      'A valid X-CSRF-Token header is required for this request',
      CSRF_TOKEN_INVALID,
    );
  }
}
