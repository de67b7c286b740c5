/** The cluster roles: `api` serves the API and no WebSockets; `ws` serves /ws and ops, no API. */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import WebSocket from 'ws';
import { builtMain } from '../support/built-service.js';
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
  const { service } = serviceForThisFile({ ROLE: 'api', ALLOW_EMBEDDED_STORE: 'true' });

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
    expect(Object.keys(((await ready.json()) as { checks: object }).checks)).toEqual([
      'shared_state',
    ]);
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

it('role api refuses to start without MONGODB_URL: api pods on embedded stores would each have their own data', async () => {
  const started = await promisify(execFile)(process.execPath, [builtMain], {
    env: { PATH: process.env.PATH, ROLE: 'api', PORT: '0', GRPC_PORT: '0' },
    timeout: 20_000,
  }).then(
    () => ({ code: 0, stderr: '' }),
    (error: { code: number; stderr: string }) => error,
  );
  expect(started.code).toBe(2);
  expect(started.stderr).toContain('MONGODB_URL is required with ROLE=api');
});
