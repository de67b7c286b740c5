/**
 * Who may open /ws: the holder of a single-use ticket (`?ticket=`, from POST
 * /api/v1/auth/ws-ticket), or, as a fallback for clients that cannot fetch tickets, an access
 * token offered as the subprotocol pair `bearer, <access token>`.
 */
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import type { TicketHolder } from '../identity/sessions/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';

export const BEARER_SUBPROTOCOL = 'bearer';

/** What the handshake offers: `?ticket=`, and the requested subprotocols. */
export interface WsCredentials {
  readonly ticket: string | undefined;
  readonly protocols: readonly string[];
}

/** Whether the handshake offers credentials at all (checked before the upgrade). */
export function offersCredentials(request: WsCredentials): boolean {
  return Boolean(request.ticket) || (request.protocols[0] === BEARER_SUBPROTOCOL && Boolean(request.protocols[1]));
}

export async function authenticateWebSocket(
  request: WsCredentials,
  tickets: WsTickets,
  verification: TokenVerification,
): Promise<TicketHolder | undefined> {
  if (request.ticket) {
    const holder = await tickets.redeem(request.ticket);
    // A ticket is only as good as its session: once the session has ended, it opens nothing.
    if (!holder || (await verification.revocations.hasSessionEnded(holder.sessionId))) return undefined;
    return holder;
  }
  const [scheme, token] = request.protocols;
  if (scheme !== BEARER_SUBPROTOCOL || !token) return undefined;
  try {
    const claims = await verification.tokens.verifyAccessToken(token);
    if (await verification.revocations.isRevoked(claims.sid, claims.jti)) return undefined;
    return { address: claims.sub, sessionId: claims.sid };
  } catch {
    return undefined;
  }
}
