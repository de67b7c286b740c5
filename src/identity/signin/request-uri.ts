import type { HandlerContext } from '@connectrpc/connect';

/**
 * The absolute URI the client addressed, as a DPoP proof's `htu` names it. The REST gateway
 * knows only the path; scheme and host come from the request as the client sent it (behind a
 * TLS-terminating proxy, from X-Forwarded-Proto).
 */
export function requestUri(context: HandlerContext): string {
  if (/^https?:\/\//.test(context.url)) return context.url;
  const scheme = context.requestHeader.get('x-forwarded-proto') === 'https' ? 'https' : 'http';
  return `${scheme}://${context.requestHeader.get('host') ?? 'localhost'}${context.url}`;
}
