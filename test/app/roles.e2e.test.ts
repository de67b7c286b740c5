/** The cluster roles: `api` serves the API and no WebSockets; `ws` serves /ws and ops, no API. */
import WebSocket from 'ws';
import { serviceForThisFile } from '../support/service-for-tests.js';

/** The HTTP status with which an upgrade to /ws is answered. */
function upgradeStatus(baseUrl: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/ws`);
    socket.once('unexpected-response', (_, response) => {
      resolve(response.statusCode ?? 0);
      socket.terminate();
    });
    socket.once('open', () => reject(new Error('the upgrade was accepted')));
    socket.once('error', () => undefined);
  });
}

describe('role api', () => {
  const { service } = serviceForThisFile({ ROLE: 'api' });

  it('role api serves the API and gRPC, and has no /ws', async () => {
    expect(service.app.grpcPort).toBeGreaterThan(0);
    expect((await fetch(`${service.baseUrl}/api/v1/version`)).status).toBe(200);
    expect(await upgradeStatus(service.baseUrl)).toBe(404);
  });
});

describe('role ws', () => {
  const { service } = serviceForThisFile({ ROLE: 'ws' });

  it('role ws serves /ws and ops, no API and no RPC port', async () => {
    expect(service.app.grpcPort).toBeUndefined();
    const api = await fetch(`${service.baseUrl}/api/v1/version`);
    expect(api.status).toBe(404);
    expect(await api.json()).toMatchObject({ success: false, code: 'NOT_FOUND' });
    const ready = await fetch(`${service.baseUrl}/health/ready`);
    expect(ready.status).toBe(200);
    expect(Object.keys(((await ready.json()) as { checks: object }).checks)).toEqual(['shared_state']);
    expect((await fetch(`${service.baseUrl}/swagger/`)).status).toBe(404);
    // The route exists: without a ticket the handshake is refused, not unknown.
    expect(await upgradeStatus(service.baseUrl)).toBe(401);
  });
});

describe('role all', () => {
  const { service } = serviceForThisFile();

  it('role all serves both', async () => {
    expect((await fetch(`${service.baseUrl}/api/v1/version`)).status).toBe(200);
    expect(await upgradeStatus(service.baseUrl)).toBe(401);
  });
});
