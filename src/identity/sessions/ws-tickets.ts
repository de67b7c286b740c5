/**
 * Single-use WebSocket tickets: a random secret that opens one `/ws` connection within 30 s on
 * any pod. Only its hash is stored, in shared state, and taking it is atomic (GETDEL), so two
 * pods racing for the same ticket cannot both win.
 */
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { hashSecret, newSecret } from '../../platform/secrets/session-secrets.js';

export const WS_TICKET_TTL_SECONDS = 30;

export interface TicketHolder {
  readonly address: string;
  readonly sessionId: string;
}

export class WsTickets {
  constructor(private readonly sharedState: SharedState) {}

  async issue(holder: TicketHolder): Promise<string> {
    const ticket = newSecret();
    await this.sharedState.set(key(ticket), JSON.stringify(holder), {
      ttlMs: WS_TICKET_TTL_SECONDS * 1000,
    });
    return ticket;
  }

  /** The holder, once: a second use, an expired or an unknown ticket gives undefined. */
  async redeem(ticket: string): Promise<TicketHolder | undefined> {
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(ticket)) return undefined;
    const stored = await this.sharedState.take(key(ticket));
    return stored === null ? undefined : (JSON.parse(stored) as TicketHolder);
  }
}

const key = (ticket: string) => `ws-ticket:${hashSecret(ticket)}`;
