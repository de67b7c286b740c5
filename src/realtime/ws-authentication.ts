/**
 * Who may open /ws: the holder of a single-use ticket (`?ticket=`, from POST
 * /api/v1/auth/ws-ticket), or, as a fallback for clients that cannot fetch tickets, an access
 * token offered as the subprotocol pair `bearer, <access token>`. This only says whom the
 * credentials name; whether their session is still live is asked afterwards (ws-opening.ts),
 * once the socket is registered under the session, so no ending can slip in between.
 */
import type { WsTickets } from '../identity/sessions/ws-tickets.js';
import { TokenVerificationError } from '../identity/tokens/token-service.js';
import type { TokenService } from '../identity/tokens/token-service.js';

export const BEARER_SUBPROTOCOL = 'bearer';

/** What the handshake offers: `?ticket=`, and the requested subprotocols. */
export interface WsCredentials {
  readonly ticket: string | undefined;
  readonly protocols: readonly string[];
}

/** Whom valid credentials name; `tokenId` for an access token, which can be denied on its own. */
export interface WsIdentity {
  readonly address: string;
  readonly sessionId: string;
  readonly tokenId?: string;
}

/** Whether the handshake offers credentials at all (checked before the upgrade). */
export function offersCredentials(request: WsCredentials): boolean {
  return (
    Boolean(request.ticket) ||
    (request.protocols[0] === BEARER_SUBPROTOCOL && Boolean(request.protocols[1]))
  );
}

/** Undefined for credentials that are not valid; rejects when they cannot be checked (shared state away). */
export async function identifyWebSocket(
  request: WsCredentials,
  tickets: WsTickets,
  tokens: TokenService,
): Promise<WsIdentity | undefined> {
  if (request.ticket) return tickets.redeem(request.ticket);
  const [scheme, token] = request.protocols;
  if (scheme !== BEARER_SUBPROTOCOL || !token) return undefined;
  try {
    const claims = await tokens.verifyAccessToken(token);
    return { address: claims.sub, sessionId: claims.sid, tokenId: claims.jti };
  } catch (error) {
    if (error instanceof TokenVerificationError) return undefined;
    throw error;
  }
}
