/**
 * Opens the service's /ws endpoint with the `ws` client, by ticket (`?ticket=`) or by the JWT
 * subprotocol fallback (`bearer, <access token>`), and reports what the handshake gave: the
 * open connection's confirmed subprotocol and the server's first message, or the refusal. A
 * refusal is either an HTTP response (status and envelope: no credentials, malformed request)
 * or, for credentials checked after the upgrade, a close with code 4000 + the status (4401).
 */
import WebSocket from 'ws';

export type WsOutcome =
  | { readonly opened: true; readonly protocol: string; readonly greeting: unknown }
  | { readonly opened: false; readonly status: number; readonly body: unknown }
  | { readonly opened: false; readonly closeCode: number; readonly reason: string };

export interface WsCredentials {
  readonly ticket?: string;
  readonly protocols?: string[];
}

export function wsUrl(baseUrl: string, ticket?: string): string {
  const url = new URL('/ws', baseUrl.replace(/^http/, 'ws'));
  if (ticket !== undefined) url.searchParams.set('ticket', ticket);
  return url.href;
}

/** Connects, waits for the greeting (or the refusal) and closes again. */
export function connectWs(baseUrl: string, credentials: WsCredentials = {}): Promise<WsOutcome> {
  return new Promise<WsOutcome>((resolve, reject) => {
    const socket = new WebSocket(wsUrl(baseUrl, credentials.ticket), credentials.protocols ?? []);
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error('no greeting and no refusal within 5 s'));
    }, 5000);
    let settled = false;
    const settle = (outcome: WsOutcome) => {
      clearTimeout(timer);
      if (!settled) resolve(outcome);
      settled = true;
    };
    socket.once('message', (data) => {
      const protocol = socket.protocol;
      socket.close();
      settle({ opened: true, protocol, greeting: JSON.parse((data as Buffer).toString()) });
    });
    socket.once('close', (code, reason) =>
      settle({ opened: false, closeCode: code, reason: reason.toString() }),
    );
    socket.once('unexpected-response', (request, response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        request.destroy();
        const text = Buffer.concat(chunks).toString('utf8');
        settle({
          opened: false,
          status: response.statusCode ?? 0,
          body: text === '' ? undefined : JSON.parse(text),
        });
      });
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

/**
 * Asserts a refused connection: the HTTP status with the failure envelope and its code, or, for
 * credentials checked after the upgrade (a spent ticket, an ended session), the close code
 * 4000 + status.
 */
export function expectWsRefused(outcome: WsOutcome, status: number, code = 'UNAUTHORIZED'): void {
  if ('closeCode' in outcome) {
    expect(outcome).toEqual({
      opened: false,
      closeCode: 4000 + status,
      reason: expect.any(String),
    });
    return;
  }
  expect(outcome).toEqual({
    opened: false,
    status,
    body: { success: false, error: expect.any(String), code },
  });
}
