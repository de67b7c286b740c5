/**
 * `/ws` until the realtime tier lands: the route exists on the main port (so clients and probes
 * find it), and refuses upgrades with 501 in the failure envelope.
 */
import type { TemplatedApp } from 'uWebSockets.js';
import { statusLine } from '../server/http-message.js';

export function attachWebSocketPlaceholder(app: TemplatedApp): void {
  app.ws('/ws', {
    upgrade: (res) => {
      res.cork(() => {
        res
          .writeStatus(statusLine(501))
          .writeHeader('Content-Type', 'application/json')
          .end(JSON.stringify({ success: false, error: 'The WebSocket tier is not available yet', code: 'NOT_IMPLEMENTED' }));
      });
    },
  });
}
