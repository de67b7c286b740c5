/**
 * End to end over real HTTP: the client address the server resolves, seen from distinct
 * loopback source addresses (Linux routes all of 127.0.0.0/8 to lo).
 */
import { loadConfig } from '../../src/platform/config/load-config.js';
import { createLogger } from '../../src/platform/logging/logger.js';
import { createMetrics } from '../../src/platform/metrics/metrics.js';
import { startHttpServer } from '../../src/server/http-server.js';
import type { RunningHttpServer } from '../../src/server/http-server.js';
import { getFrom } from '../support/http-from.js';

const UNTRUSTED = '127.0.0.7';
const PROXY = '127.0.0.8';

async function echoServer(trustedProxies: string | undefined): Promise<RunningHttpServer> {
  return startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1024,
    logger: createLogger('silent'),
    metrics: createMetrics(),
    trustedProxies: loadConfig(
      trustedProxies === undefined ? {} : { TRUSTED_PROXIES: trustedProxies },
    ).http.trustedProxies,
    dispatch: async (request) => ({
      status: 200,
      headers: [],
      body: request.clientIp,
      routeLabel: 'echo',
    }),
  });
}

describe('client address over HTTP', () => {
  describe(`TRUSTED_PROXIES=${PROXY}/32`, () => {
    let server: RunningHttpServer;
    let url: string;
    beforeAll(async () => {
      server = await echoServer(`${PROXY}/32,fd00::/8`);
      url = `http://127.0.0.1:${server.port}/`;
    });
    afterAll(() => server.close(1000));

    it('is the socket address of an untrusted client', async () => {
      expect(await getFrom(url, UNTRUSTED)).toEqual({ status: 200, body: UNTRUSTED });
    });

    it('ignores X-Forwarded-For from an untrusted client', async () => {
      expect((await getFrom(url, UNTRUSTED, { 'X-Forwarded-For': '203.0.113.9' })).body).toBe(
        UNTRUSTED,
      );
    });

    it('believes X-Forwarded-For from the trusted proxy', async () => {
      expect((await getFrom(url, PROXY, { 'X-Forwarded-For': '203.0.113.9' })).body).toBe(
        '203.0.113.9',
      );
    });

    it('takes the rightmost untrusted entry of a chain from the trusted proxy', async () => {
      expect(
        (await getFrom(url, PROXY, { 'X-Forwarded-For': '198.51.100.1, 203.0.113.9' })).body,
      ).toBe('203.0.113.9');
    });

    it('is the proxy itself when it sends no header or a malformed one', async () => {
      expect((await getFrom(url, PROXY)).body).toBe(PROXY);
      expect((await getFrom(url, PROXY, { 'X-Forwarded-For': 'not-an-ip' })).body).toBe(PROXY);
    });
  });

  describe('TRUSTED_PROXIES unset', () => {
    let server: RunningHttpServer;
    let url: string;
    beforeAll(async () => {
      server = await echoServer(undefined);
      url = `http://127.0.0.1:${server.port}/`;
    });
    afterAll(() => server.close(1000));

    it('never reads X-Forwarded-For, even from the would-be proxy', async () => {
      expect((await getFrom(url, PROXY, { 'X-Forwarded-For': '203.0.113.9' })).body).toBe(PROXY);
      expect((await getFrom(url, UNTRUSTED, { 'X-Forwarded-For': '203.0.113.9' })).body).toBe(
        UNTRUSTED,
      );
    });
  });
});
