/**
 * The REST surface over real HTTP: version headers, the failure envelope for every kind of bad
 * request, request ids, and the implemented system routes.
 */
import { serviceForThisFile } from '../support/service-for-tests.js';
import type { Json } from '../support/json.js';

const { service } = serviceForThisFile({ MAX_BODY_BYTES: '2048' });

const url = (path: string) => `${service.baseUrl}${path}`;
const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(url(path), {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

describe('GET /api/version', () => {
  it('answers on /api/v1 with the spec shape and stable headers', async () => {
    const response = await fetch(url('/api/v1/version'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      success: true,
      message: 'API version information',
      data: {
        version: 'v1',
        deprecated: false,
        supported_versions: ['v1'],
        current_path: '/api/v1',
      },
    });
    expect(response.headers.get('x-api-version')).toBe('v1');
    expect(response.headers.get('x-api-stability')).toBe('stable');
    expect(response.headers.get('deprecation')).toBeNull();
    expect(response.headers.get('content-type')).toBe('application/json');
  });

  it('answers on the unversioned path with deprecation headers', async () => {
    const response = await fetch(url('/api/version'));
    expect(response.status).toBe(200);
    const body = (await response.json()) as Json;
    expect(body.data).toEqual({
      version: 'v1',
      deprecated: true,
      supported_versions: ['v1'],
      current_path: '/api/v1',
    });
    expect(response.headers.get('x-api-version')).toBe('v1');
    expect(response.headers.get('x-api-stability')).toBe('deprecated');
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.headers.get('sunset')).toBe('Wed, 30 Jun 2027 00:00:00 GMT');
    expect(response.headers.get('link')).toBe('</api/v1/version>; rel="successor-version"');
  });

  it('honours Accept: application/vnd.service.v1+json and refuses unknown versions', async () => {
    const v1 = await fetch(url('/api/version'), {
      headers: { accept: 'application/vnd.service.v1+json' },
    });
    expect(v1.status).toBe(200);
    expect(v1.headers.get('content-type')).toBe('application/vnd.service.v1+json');
    const v9 = await fetch(url('/api/v1/version'), {
      headers: { accept: 'application/vnd.service.v9+json' },
    });
    expect(v9.status).toBe(406);
    expect(await v9.json()).toEqual({
      success: false,
      error: 'API version v9 is not served',
      code: 'UNSUPPORTED_API_VERSION',
    });
  });
});

describe('failures use the envelope', () => {
  it('404 for an unknown route, with version headers', async () => {
    const response = await fetch(url('/api/v1/no-such-thing'));
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({
      success: false,
      error: 'No route for GET /api/v1/no-such-thing',
      code: 'NOT_FOUND',
    });
    expect(response.headers.get('x-api-version')).toBe('v1');
  });

  it('404 outside the API too', async () => {
    const response = await fetch(url('/nothing-here'));
    expect(response.status).toBe(404);
    expect(((await response.json()) as Json).code).toBe('NOT_FOUND');
  });

  it('405 with Allow for a wrong method', async () => {
    const response = await fetch(url('/api/v1/version'), { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET');
    expect(await response.json()).toMatchObject({ success: false, code: 'METHOD_NOT_ALLOWED' });
  });

  it('400 for malformed JSON', async () => {
    const response = await fetch(url('/api/v1/errors'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"errors": [',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({
      success: false,
      error: 'Malformed JSON body',
      code: 'MALFORMED_JSON',
    });
  });

  it('400 for a body that is not an object, or has unknown or mistyped members', async () => {
    for (const body of [[1, 2], { unknown_member: 1 }, { errors: 'nope' }]) {
      const response = await postJson('/api/v1/errors', body);
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ success: false, code: 'INVALID_ARGUMENT' });
    }
  });

  it('413 for a body over MAX_BODY_BYTES', async () => {
    const response = await postJson('/api/v1/errors', { errors: [{ message: 'x'.repeat(4096) }] });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ success: false, code: 'PAYLOAD_TOO_LARGE' });
  });

  it('415 for a body that is not JSON', async () => {
    const response = await fetch(url('/api/v1/errors'), {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(response.status).toBe(415);
    expect(((await response.json()) as Json).code).toBe('UNSUPPORTED_MEDIA_TYPE');
  });
});

describe('request ids', () => {
  it('echoes a well-formed X-Request-Id and logs with it', async () => {
    const response = await fetch(url('/api/v1/version'), {
      headers: { 'x-request-id': 'req-abc.123' },
    });
    expect(response.headers.get('x-request-id')).toBe('req-abc.123');
    expect(
      service.logs.some(
        (line) =>
          line.requestId === 'req-abc.123' &&
          line.route === '/api/v1/version' &&
          line.status === 200,
      ),
    ).toBe(true);
  });

  it('replaces a malformed one with a generated id', async () => {
    const response = await fetch(url('/api/v1/version'), {
      headers: { 'x-request-id': 'bad id with spaces' },
    });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('POST /errors', () => {
  const batch = {
    batchTimestamp: 1763777000000,
    errors: [
      {
        message: 'Cannot read properties of undefined',
        errorType: 'TypeError',
        stack: 'TypeError: at x',
        componentStack: 'in App',
        environment: 'production',
        timestamp: 1763777000001,
        url: 'https://app.example/chat',
        userAddress: '0x0000000000000000000000000000000000000001',
        userAgent: 'jest',
        additionalInfo: { release: '1.2.3', nested: { ok: true } },
      },
    ],
  };

  it.each(['/errors', '/api/errors', '/api/v1/errors'])(
    'accepts a valid batch at %s and logs each error',
    async (path) => {
      const response = await postJson(path, batch, { 'x-request-id': `errors-${path.length}` });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({
        success: true,
        message: 'Errors recorded',
        accepted: 1,
      });
      const logged = service.logs.find(
        (line) => line.requestId === `errors-${path.length}` && line.msg === 'frontend error',
      );
      expect(logged).toMatchObject({
        frontendError: {
          message: batch.errors[0]!.message,
          errorType: 'TypeError',
          additionalInfo: { release: '1.2.3' },
        },
      });
    },
  );

  it('refuses an empty batch and an error without message', async () => {
    for (const body of [{ errors: [] }, { errors: [{ errorType: 'TypeError' }] }]) {
      const response = await postJson('/api/v1/errors', body);
      expect(response.status).toBe(400);
      expect(((await response.json()) as Json).success).toBe(false);
    }
  });

  it('counts accepted errors in /metrics with bounded labels', async () => {
    await postJson('/errors', {
      errors: [{ message: 'boom', errorType: 'MyVeryOwnError', environment: 'weird' }],
    });
    const metrics = await (await fetch(url('/metrics'))).text();
    expect(metrics).toMatch(
      /frontend_errors_total\{environment="production",error_type="TypeError"\} \d+/,
    );
    expect(metrics).toMatch(/frontend_errors_total\{environment="other",error_type="other"\} 1/);
  });
});

describe('ops routes', () => {
  it('/health, /health/live and /health/ready report', async () => {
    for (const path of ['/health', '/health/ready']) {
      const response = await fetch(url(path));
      expect(response.status).toBe(200);
      const body = (await response.json()) as Json;
      expect(body).toMatchObject({
        success: true,
        status: 'ok',
        checks: { store: { status: 'up' }, shared_state: { status: 'up' } },
      });
    }
    expect((await fetch(url('/health/live'))).status).toBe(200);
  });

  it('/metrics exposes HTTP metrics by route template and RPC metrics', async () => {
    await fetch(url('/api/v1/version'));
    const metrics = await (await fetch(url('/metrics'))).text();
    expect(metrics).toMatch(
      /http_requests_total\{method="GET",route="\/api\/v1\/version",status="200"\} \d+/,
    );
    expect(metrics).toMatch(
      /http_request_duration_seconds_bucket\{method="GET",route="\/api\/v1\/version",status="200",le="0.005"\} \d+/,
    );
    expect(metrics).toMatch(
      /rpc_requests_total\{service="SystemService",method="GetVersion",code="ok",transport="rest"\} \d+/,
    );
    expect(metrics).toContain('process_cpu_seconds_total');
  });
});
