/**
 * The /ws route on the main port. The handshake is authenticated (see ws-authentication.ts):
 * anything else is refused with 401 in the failure envelope before the upgrade. The realtime
 * protocol itself (events, fan-out, signaling) lands with its own piece of work; until then an
 * accepted connection is greeted and told that messages are not handled yet.
 */
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { WsTickets } from '../identity/tickets/ws-tickets.js';
import type { TokenVerification } from '../identity/tokens/token-verification.js';
import type { Logger } from '../platform/logging/logger.js';
import { statusLine } from '../server/http-message.js';
import { authenticateWebSocket } from './ws-authentication.js';
import type { WsIdentity } from './ws-authentication.js';

export interface WsEndpointDependencies {
  readonly tickets: WsTickets;
  readonly verification: TokenVerification;
  readonly logger: Logger;
}

export function attachWsEndpoint(deps: WsEndpointDependencies) {
  return (app: TemplatedApp): void => {
    app.ws<WsIdentity>('/ws', {
      idleTimeout: 120,
      maxPayloadLength: 64 * 1024,
      upgrade: (res, req, context) => {
        // Everything needed from `req` is read now: uWS invalidates it when this returns.
        const ticket = new URLSearchParams(req.getQuery() ?? '').get('ticket') ?? undefined;
        const protocols = (req.getHeader('sec-websocket-protocol') || '').split(',').map((p) => p.trim()).filter(Boolean);
        const key = req.getHeader('sec-websocket-key');
        const extensions = req.getHeader('sec-websocket-extensions');
        let aborted = false;
        res.onAborted(() => {
          aborted = true;
        });
        authenticateWebSocket({ ticket, protocols }, deps.tickets, deps.verification).then(
          (identity) => {
            if (aborted) return;
            if (!identity) return refuse(res, 401, 'A valid WebSocket ticket is required', 'UNAUTHORIZED');
            res.cork(() => res.upgrade(identity, key, identity.protocol ?? '', extensions, context));
          },
          (error: unknown) => {
            deps.logger.error({ err: error }, 'WebSocket authentication failed');
            if (!aborted) refuse(res, 503, 'Authentication is unavailable', 'UNAVAILABLE');
          },
        );
      },
      open: (ws) => {
        const { address } = ws.getUserData();
        ws.send(JSON.stringify({ type: 'hello', address }));
      },
      message: (ws) => {
        ws.send(JSON.stringify({ type: 'error', code: 'NOT_IMPLEMENTED', error: 'Realtime events are not available yet' }));
      },
    });
  };
}

function refuse(res: HttpResponse, status: number, error: string, code: string): void {
  res.cork(() => {
    res.writeStatus(statusLine(status)).writeHeader('Content-Type', 'application/json').end(JSON.stringify({ success: false, error, code }));
  });
}
