/**
 * Who may open /ws: the holder of a single-use ticket (`?ticket=`, from POST
 * /api/v1/auth/ws-ticket), or, as a fallback for clients that cannot fetch tickets, an access
 * token offered as the subprotocol pair `bearer, <access token>`.
 */
import type { WsTickets } from '../identity/tickets/ws-tickets.js';
import type { TicketHolder } from '../identity/tickets/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';

export interface WsIdentity extends TicketHolder {
  /** The subprotocol to confirm in the handshake (`bearer` for the fallback). */
  readonly protocol: string | undefined;
}

export const BEARER_SUBPROTOCOL = 'bearer';

export async function authenticateWebSocket(
  request: { ticket: string | undefined; protocols: string[] },
  tickets: WsTickets,
  verification: TokenVerification,
): Promise<WsIdentity | undefined> {
  if (request.ticket) {
    const holder = await tickets.redeem(request.ticket);
    // A ticket is only as good as its session: once the session has ended, it opens nothing.
    if (!holder || (await verification.revocations.hasSessionEnded(holder.sessionId))) return undefined;
    return { ...holder, protocol: request.protocols[0] };
  }
  const [scheme, token] = request.protocols;
  if (scheme !== BEARER_SUBPROTOCOL || !token) return undefined;
  try {
    const claims = await verification.tokens.verifyAccessToken(token);
    if (await verification.revocations.isRevoked(claims.sid, claims.jti)) return undefined;
    return { address: claims.sub, sessionId: claims.sid, protocol: BEARER_SUBPROTOCOL };
  } catch {
    return undefined;
  }
}
