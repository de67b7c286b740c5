/** Names of the cookies of a browser session (spec: a session cookie and a CSRF cookie). */
export const SESSION_COOKIE = 'svc_session';
export const CSRF_COOKIE = 'svc_csrf';
