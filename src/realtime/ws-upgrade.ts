/**
 * The /ws upgrade, synchronous on purpose: this uWebSockets.js build can close a socket upgraded
 * asynchronously inside res.cork() right after its open event (uWebSockets PR #1929), and an
 * uncorked upgrade logs a warning per connection. So requests that cannot succeed are refused
 * here with HTTP status and envelope, and credentials that need shared state are checked right
 * after the upgrade (ws-opening.ts: close 4401 / 4503).
 */
import type { HttpRequest, HttpResponse, us_socket_context_t } from 'uWebSockets.js';
import { statusLine } from '../server/http-message.js';
import type { ResumePoint } from './client-connection.js';
import { BEARER_SUBPROTOCOL, offersCredentials } from './ws-authentication.js';
import { newSocketState } from './ws-socket.js';

/** Upgrades a request that offers credentials and a well-formed position; refuses it otherwise. */
export function upgradeSocket(
  res: HttpResponse,
  req: HttpRequest,
  context: us_socket_context_t,
): void {
  const query = new URLSearchParams(req.getQuery() ?? '');
  const protocols = (req.getHeader('sec-websocket-protocol') || '')
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  const credentials = { ticket: query.get('ticket') ?? undefined, protocols };
  const resume = resumePointOf(query);
  if (resume === null)
    return refuse(
      res,
      400,
      'stream and last_seq must be given together; last_seq is a whole number',
      'INVALID_ARGUMENT',
    );
  if (!offersCredentials(credentials))
    return refuse(res, 401, 'A valid WebSocket ticket is required', 'UNAUTHORIZED');
  const state = newSocketState({ credentials, resume });
  const protocol = credentials.ticket ? (protocols[0] ?? '') : BEARER_SUBPROTOCOL;
  res.upgrade(
    state,
    req.getHeader('sec-websocket-key'),
    protocol,
    req.getHeader('sec-websocket-extensions'),
    context,
  );
}

/** Undefined: a fresh connection; null: a malformed resume request. */
function resumePointOf(query: URLSearchParams): ResumePoint | undefined | null {
  const stream = query.get('stream');
  const lastSeq = query.get('last_seq');
  if (stream === null && lastSeq === null) return undefined;
  if (stream === null || lastSeq === null || !/^\d{1,10}$/.test(lastSeq) || stream.length > 64)
    return null;
  return { stream, seq: Number(lastSeq) };
}

function refuse(res: HttpResponse, status: number, error: string, code: string): void {
  res.cork(() => {
    res
      .writeStatus(statusLine(status))
      .writeHeader('Content-Type', 'application/json')
      .end(JSON.stringify({ success: false, error, code }));
  });
}
