/**
 * The HTTP server reads the client address only when something asks for it (uws-request.ts).
 * Over real HTTP from a chosen loopback address: a synchronous answer that asks gets it, and
 * an answer that comes after the client went away still gets it: the server read it before
 * the abort made the uWS response unusable.
 */
import { createLogger } from '../../src/platform/logging/logger.js';
import { createMetrics } from '../../src/platform/metrics/metrics.js';
import { startHttpServer } from '../../src/server/http-server.js';
import type { Dispatch, RunningHttpServer } from '../../src/server/http-server.js';
import { abandonedRequest, getFrom } from '../support/http-from.js';

const CLIENT = '127.0.0.9';

const serve = (dispatch: Dispatch) =>
  startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1024,
    logger: createLogger('silent'),
    metrics: createMetrics(),
    dispatch,
  });

describe('client address read on demand', () => {
  let server: RunningHttpServer | undefined;
  afterEach(() => server?.close(1000));

  it('is the socket address when a synchronous answer asks for it', async () => {
    server = await serve((request) => ({
      status: 200,
      headers: [],
      body: request.clientIp,
      routeLabel: 'echo',
    }));
    expect(await getFrom(`http://127.0.0.1:${server.port}/`, CLIENT)).toEqual({
      status: 200,
      body: CLIENT,
    });
  });

  it('is still the socket address when an asynchronous answer asks after the client aborted', async () => {
    let received!: () => void;
    const requestArrived = new Promise<void>((resolve) => (received = resolve));
    let release!: () => void;
    const clientGone = new Promise<void>((resolve) => (release = resolve));
    let asked!: (outcome: string) => void;
    const addressAsked = new Promise<string>((resolve) => (asked = resolve));
    server = await serve(async (request) => {
      received();
      await clientGone;
      try {
        asked(request.clientIp);
      } catch (error) {
        asked(`read failed: ${String(error)}`);
      }
      return { status: 200, headers: [], body: '', routeLabel: 'late' };
    });

    await abandonedRequest(server.port, '/late', requestArrived, CLIENT);
    release();
    expect(await addressAsked).toBe(CLIENT);
  });
});
