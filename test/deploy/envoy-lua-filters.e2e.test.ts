/**
 * The Envoy Lua filters of the chart (envoy/api-versioning.lua, envoy/error-envelope.lua),
 * executed under LuaJIT against a stub of Envoy's stream handle, answer like the in-process
 * gateway. Each request goes once to the in-process REST gateway and once through the edge
 * model (support/envoy-lua/envoy-edge.ts): the Lua sources and filter order of the rendered
 * Envoy ConfigMap, around a model of the transcoder that calls the same running service over
 * gRPC, so the filters see the real trailers the api pods add (x-http-status, x-error-envelope,
 * Retry-After...). Status, every header but transport ones, and the body must be equal.
 */
import { isDeepStrictEqual } from 'node:util';
import { envoyConfigMap } from './support/envoy-config.js';
import { EnvoyEdge } from './support/envoy-lua/envoy-edge.js';
import type { EdgeResponse } from './support/envoy-lua/envoy-edge.js';
import type { EdgeRequest } from './support/envoy-lua/transcoder-model.js';
import { withLuaJit } from './support/envoy-lua/run-lua-filter.js';
import { findManifest, renderManifests } from './support/helm.js';
import { cookieAuth, sessionCookies } from '../support/session-api.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import type { TestService } from '../support/start-service.js';
import { bearer, signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { TestPhone, lastSmsCode } from '../phone/phone-support.js';

const manifests = renderManifests([]);
const envoyConfig = envoyConfigMap(manifests);
/** The service runs with the chart's settings that shape responses (body limit, sunset date). */
const chartSettings = (() => {
  const data = (
    findManifest(manifests, 'ConfigMap', '-config') as unknown as { data: Record<string, string> }
  ).data;
  return { MAX_BODY_BYTES: data.MAX_BODY_BYTES!, API_LEGACY_SUNSET: data.API_LEGACY_SUNSET! };
})();

/** Headers of the transport, not of the API: each hop sets its own. */
const TRANSPORT_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'content-length',
  'uwebsockets',
  'x-request-id',
]);

interface Answer {
  status: number;
  headers: [string, string][];
  body: unknown;
}

function comparable(status: number, headers: [string, string][], body: string): Answer {
  const contentType = headers.find(([key]) => key === 'content-type')?.[1] ?? '';
  return {
    status,
    headers: headers
      .filter(([key]) => !TRANSPORT_HEADERS.has(key))
      .sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y)),
    body: /json/.test(contentType) ? JSON.parse(body) : body,
  };
}

async function inProcessAnswer(service: TestService, request: EdgeRequest): Promise<Answer> {
  const response = await fetch(`${service.baseUrl}${request.path}`, {
    method: request.method,
    headers: request.headers,
    ...(request.body === undefined ? {} : { body: request.body }),
  });
  const headers: [string, string][] = [];
  response.headers.forEach((value, key) =>
    key === 'set-cookie' ? undefined : headers.push([key, value]),
  );
  for (const cookie of response.headers.getSetCookie()) headers.push(['set-cookie', cookie]);
  return comparable(response.status, headers, await response.text());
}

function edgeAnswer(response: EdgeResponse): Answer {
  const contentLength = response.headers.find(([key]) => key === 'content-length')?.[1];
  // Envoy frames the body with the content-length the filters leave: it must be the body's.
  if (contentLength !== undefined)
    expect(Number(contentLength)).toBe(Buffer.byteLength(response.body));
  return comparable(response.status, response.headers, response.body);
}

/** Sends the request to both, in-process first; returns both answers. */
async function bothAnswers(
  service: TestService,
  request: EdgeRequest,
): Promise<{ inProcess: Answer; edge: Answer }> {
  const inProcess = await inProcessAnswer(service, request);
  const edge = edgeAnswer(await new EnvoyEdge(envoyConfig, service.grpcAddress).handle(request));
  return { inProcess, edge };
}

/**
 * Asserts the edge answers exactly as the in-process gateway, with the expected status and code;
 * returns the answer. With `countdown`, the answers carry a Retry-After that counts down in whole
 * seconds between the two calls: when a second boundary fell between them the pair is taken once
 * more (a pair takes far less than a second, so a boundary cannot fall inside two in a row).
 */
async function expectSameAnswer(
  service: TestService,
  request: EdgeRequest,
  status: number,
  code?: string,
  countdown = false,
): Promise<Answer> {
  let { inProcess, edge } = await bothAnswers(service, request);
  if (countdown && !isDeepStrictEqual(inProcess, edge))
    ({ inProcess, edge } = await bothAnswers(service, request));
  expect(edge).toEqual(inProcess);
  expect(inProcess.status).toBe(status);
  if (code !== undefined)
    expect(inProcess.body).toMatchObject({ success: false, error: expect.any(String), code });
  return inProcess;
}

const json = (
  method: string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): EdgeRequest => ({
  method,
  path,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});
const get = (path: string, headers: Record<string, string> = {}): EdgeRequest => ({
  method: 'GET',
  path,
  headers,
});

withLuaJit(() => {
  describe('the edge and the in-process gateway', () => {
    const { service } = serviceForThisFile(chartSettings);
    let session: SignedIn;
    beforeAll(async () => {
      session = await signIn(service.baseUrl);
    });

    it('success: the same body and version headers, public and authenticated', async () => {
      await expectSameAnswer(service, get('/api/v1/version'), 200);
      const answer = await expectSameAnswer(
        service,
        get('/api/v1/mfa/status', bearer(session)),
        200,
      );
      expect(answer.headers).toEqual(
        expect.arrayContaining([
          ['x-api-version', 'v1'],
          ['x-api-stability', 'stable'],
        ]),
      );
    });

    it('legacy prefix: served by the v1 RPC with Deprecation, Sunset and Link, on success and on failure', async () => {
      const answer = await expectSameAnswer(
        service,
        get('/api/mfa/status?verbose=1', bearer(session)),
        200,
      );
      expect(answer.headers).toEqual(
        expect.arrayContaining([
          ['deprecation', 'true'],
          ['link', '</api/v1/mfa/status>; rel="successor-version"'],
        ]),
      );
      await expectSameAnswer(service, json('POST', '/api/auth/ws-ticket', {}), 401, 'UNAUTHORIZED');
    });

    it('400 INVALID_ARGUMENT from the RPC', async () => {
      await expectSameAnswer(
        service,
        json('POST', '/api/v1/initialize', { wallet_address: 'not-an-address' }),
        400,
      );
    });

    it('401 UNAUTHORIZED without credentials', async () => {
      await expectSameAnswer(
        service,
        json('POST', '/api/v1/auth/ws-ticket', {}),
        401,
        'UNAUTHORIZED',
      );
    });

    it('403 for a cookie call without X-CSRF-Token', async () => {
      await expectSameAnswer(
        service,
        json('POST', '/api/v1/auth/ws-ticket', {}, cookieAuth(sessionCookies(session))),
        403,
        'CSRF_TOKEN_INVALID',
      );
    });

    it('404 NOT_FOUND from the RPC', async () => {
      await expectSameAnswer(
        service,
        {
          method: 'DELETE',
          path: '/api/v1/mfa/trusted-devices/no-such-device',
          headers: bearer(session),
        },
        404,
        'NOT_FOUND',
      );
    });

    it('409 CONFLICT from the RPC', async () => {
      await expectSameAnswer(
        service,
        get('/api/v1/mfa/backup-codes/status', bearer(session)),
        409,
        'CONFLICT',
      );
    });

    it('410 GONE, which no gRPC code expresses', async () => {
      const phone = new TestPhone();
      const sent = await fetch(`${service.baseUrl}/api/v1/auth/phone/send-sms`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ phone_number: phone.number, phone_hash: phone.hash }),
      });
      expect(sent.status).toBe(200);
      const verify = json('POST', '/api/v1/auth/phone/verify-code', {
        phone_hash: phone.hash,
        code: lastSmsCode(service.dataDir, phone.number),
      });
      expect(
        (
          await fetch(`${service.baseUrl}${verify.path}`, {
            method: 'POST',
            headers: verify.headers,
            body: verify.body!,
          })
        ).status,
      ).toBe(200);
      await expectSameAnswer(service, verify, 410, 'GONE');
    });

    it("404 for an unknown path, Envoy's own reply reshaped, under both prefixes and an unserved version", async () => {
      await expectSameAnswer(service, get('/api/v1/no-such-thing?page=2'), 404, 'NOT_FOUND');
      await expectSameAnswer(service, get('/api/no-such-thing'), 404, 'NOT_FOUND');
      await expectSameAnswer(service, get('/no-such-thing'), 404, 'NOT_FOUND');
      await expectSameAnswer(service, get('/api/v2/mfa/status', bearer(session)), 404, 'NOT_FOUND');
    });

    it("413 for a body over MAX_BODY_BYTES, Envoy's own reply reshaped, with the version headers the spec requires", async () => {
      const padding = 'x'.repeat(Number(chartSettings.MAX_BODY_BYTES) + 1);
      const { inProcess, edge } = await bothAnswers(
        service,
        json('POST', '/api/v1/check-username', { username: padding }),
      );
      expect(inProcess).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
      // The in-process HTTP server answers 413 before routing and without X-API-Version (a defect
      // of src/server/http-server.ts: the spec puts the version headers on every response).
      const versionHeaders: [string, string][] = [
        ['x-api-stability', 'stable'],
        ['x-api-version', 'v1'],
      ];
      expect(edge).toEqual({ ...inProcess, headers: [...inProcess.headers, ...versionHeaders] });
    });

    it('405 in process is 404 at the edge (the documented difference)', async () => {
      const { inProcess, edge } = await bothAnswers(service, get('/api/v1/auth/ws-ticket'));
      expect(inProcess).toMatchObject({ status: 405, body: { code: 'METHOD_NOT_ALLOWED' } });
      expect(edge).toMatchObject({ status: 404, body: { code: 'NOT_FOUND' } });
    });
  });

  describe('the edge and the in-process gateway, with a CAPTCHA provider that does not answer', () => {
    // A closed port: the provider is unreachable, and CAPTCHA-gated RPCs fail closed.
    const { service } = serviceForThisFile({
      ...chartSettings,
      CAPTCHA_PROVIDER: 'turnstile',
      CAPTCHA_SECRET: 'test-secret',
      CAPTCHA_VERIFY_URL: 'http://127.0.0.1:1/siteverify',
    });

    it('503 when a dependency is down', async () => {
      const initialize = json('POST', '/api/v1/initialize', {
        wallet_address: '0x0000000000000000000000000000000000000001',
        captcha_token: 'token',
      });
      await expectSameAnswer(service, initialize, 503, 'CAPTCHA_UNAVAILABLE');
    });
  });

  describe('the edge and the in-process gateway, with rate limits on', () => {
    const { service } = serviceForThisFile({ ...chartSettings, RATE_LIMITS_ENABLED: 'true' });

    it('429 with the per-endpoint body, Retry-After and X-RateLimit-*', async () => {
      const enable = json(
        'POST',
        '/api/v1/mfa/totp/enable',
        { code: '123456' },
        bearer(await signIn(service.baseUrl)),
      );
      // Use up the endpoint's bucket (5 a minute, burst 2, per user); a token comes back after 12 s.
      for (let attempt = 0; (await inProcessAnswer(service, enable)).status !== 429; attempt++)
        expect(attempt).toBeLessThan(5);
      const refused = await expectSameAnswer(service, enable, 429, 'RATE_LIMIT_EXCEEDED', true);
      expect(refused.headers).toEqual(
        expect.arrayContaining([
          ['retry-after', expect.any(String)],
          ['x-ratelimit-limit', '5'],
        ]),
      );
      expect(refused.body).toMatchObject({
        retry_after: expect.any(Number),
        limit: 5,
        window: '60s',
      });
    });
  });
});
