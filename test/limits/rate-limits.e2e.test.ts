/**
 * The spec's limits on a running service, over real HTTP from distinct loopback addresses
 * (each address is its own client) and over gRPC: the scopes, the 429 headers and both body
 * shapes.
 */
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { requestFrom } from '../support/http-from.js';
import { TestUser } from '../support/wallet.js';
import { serviceForThisFile } from '../support/service-for-tests.js';

const { service } = serviceForThisFile({ RATE_LIMITS_ENABLED: 'true' });

let nextAddress = 10;
/** A loopback address no other test of this file uses: a fresh client with fresh buckets. */
const addressOf = (n: number) => `127.0.${Math.floor(n / 250)}.${(n % 250) + 2}`;
const freshClient = () => addressOf(nextAddress++);
const lastClient = () => addressOf(nextAddress - 1);
const url = (path: string) => `${service.baseUrl}${path}`;

async function initializeFrom(address: string) {
  const user = new TestUser();
  return requestFrom(url('/api/v1/initialize'), address, {
    method: 'POST',
    json: await user.initializeBody('register'),
  });
}

it('per endpoint: POST /api/v1/initialize allows a burst of 2 per IP, then 429 with the per-endpoint body and headers', async () => {
  const client = freshClient();
  expect((await initializeFrom(client)).status).toBe(200);
  expect((await initializeFrom(client)).status).toBe(200);
  const refused = await initializeFrom(client);
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body)).toEqual({
    success: false,
    error: 'Rate limit exceeded',
    code: 'RATE_LIMIT_EXCEEDED',
    message: expect.stringMatching(/^Too many requests to this endpoint: retry after \d+ s$/),
    retry_after: 12,
    limit: 5,
    window: '60s',
  });
  expect(refused.headers).toMatchObject({
    'retry-after': '12',
    'x-ratelimit-limit': '5',
    'x-ratelimit-window': '60s',
  });
  // The bucket is the client's own: another address signs in at once.
  expect((await initializeFrom(freshClient())).status).toBe(200);
});

it('per IP, all endpoints: a burst of 20, then 429 with the envelope', async () => {
  const client = freshClient();
  const statuses: number[] = [];
  for (let i = 0; i < 21; i++)
    statuses.push((await requestFrom(url('/api/v1/version'), client)).status);
  expect(statuses.slice(0, 20)).toEqual(Array(20).fill(200));
  expect(statuses[20]).toBe(429);
  const refused = await requestFrom(url('/api/version'), client);
  expect(JSON.parse(refused.body)).toEqual({
    success: false,
    error: 'Rate limit exceeded',
    code: 'RATE_LIMIT_EXCEEDED',
  });
  expect(refused.headers).toMatchObject({
    'retry-after': '1',
    'x-ratelimit-limit': '100',
    'x-ratelimit-window': '60s',
  });
  // Both prefixes draw from the same buckets.
  expect(refused.status).toBe(429);
});

it('authentication attempts overall: 5 per minute per IP across sign-in and refresh', async () => {
  const client = freshClient();
  const refresh = () =>
    requestFrom(url('/api/v1/auth/refresh'), client, {
      method: 'POST',
      json: { refresh_token: 'not-a-token' },
    });
  expect((await initializeFrom(client)).status).toBe(200);
  expect((await initializeFrom(client)).status).toBe(200);
  for (let i = 0; i < 3; i++) expect((await refresh()).status).toBe(401);
  const refused = await refresh();
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body)).toEqual({
    success: false,
    error: 'Rate limit exceeded',
    code: 'RATE_LIMIT_EXCEEDED',
  });
  expect(refused.headers).toMatchObject({ 'x-ratelimit-limit': '5', 'x-ratelimit-window': '60s' });
});

it('gRPC callers get RESOURCE_EXHAUSTED with the retry delay in metadata', async () => {
  const system = grpcClient(
    service.grpcAddress,
    'service/v1/system.proto',
    'service.v1.SystemService',
  );
  try {
    let error: grpc.ServiceError | undefined;
    for (let i = 0; i < 25 && !error; i++) {
      error = await unary(system, 'GetVersion', {}).then(
        () => undefined,
        (e: grpc.ServiceError) => e,
      );
    }
    expect(error?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(error?.metadata.get('x-error-code')).toEqual(['RATE_LIMIT_EXCEEDED']);
    expect(error?.metadata.get('retry-after')).toEqual(['1']);
  } finally {
    system.close();
  }
});

it('counts refusals by scope and RPC in /metrics', async () => {
  const metrics = (await requestFrom(url('/metrics'), freshClient())).body;
  expect(metrics).toMatch(
    /rate_limited_requests_total\{scope="endpoint",rpc="AuthService.Initialize"\} [1-9]/,
  );
  expect(metrics).toMatch(
    /rate_limited_requests_total\{scope="ip",rpc="SystemService.GetVersion"\} [1-9]/,
  );
  expect(metrics).toMatch(/rate_limit_decisions_total\{scope="auth",outcome="limited"\} [1-9]/);
});

describe('per authenticated user', () => {
  it('1000 per hour, burst 50, across addresses and endpoints; exempt RPCs keep working', async () => {
    const signedIn = await initializeFrom(freshClient());
    expect(signedIn.status).toBe(200);
    const auth = {
      authorization: `Bearer ${(JSON.parse(signedIn.body) as { access_token: string }).access_token}`,
    };
    // Spread over endpoints (each has its own burst of 20) and addresses (each IP has 20).
    const paths = ['/api/v1/auth/sessions', '/api/v1/auth/devices', '/api/v1/chats'];
    const statuses: number[] = [];
    for (let i = 0; i < 50; i++) {
      const client = i % 10 === 0 ? freshClient() : lastClient();
      statuses.push((await requestFrom(url(paths[i % 3]!), client, { headers: auth })).status);
    }
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    const refused = await requestFrom(url('/api/v1/auth/sessions'), freshClient(), {
      headers: auth,
    });
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({
      success: false,
      error: 'Rate limit exceeded',
      code: 'RATE_LIMIT_EXCEEDED',
    });
    expect(refused.headers).toMatchObject({
      'x-ratelimit-limit': '1000',
      'x-ratelimit-window': '1h',
    });
    // CheckUsername is exempt from the per-user quota (spec, "Exempt from the per-user quota").
    const exempt = await requestFrom(url('/api/v1/check-username'), freshClient(), {
      method: 'POST',
      headers: auth,
      json: { username: 'someone_new' },
    });
    expect(exempt.status).toBe(200);
  });
});

it('the operational paths are exempt from user quotas but share the per-IP bucket', async () => {
  const client = freshClient();
  const statuses: number[] = [];
  for (let i = 0; i < 10; i++)
    statuses.push((await requestFrom(url('/health/live'), client)).status);
  for (let i = 0; i < 10; i++)
    statuses.push((await requestFrom(url('/api/v1/version'), client)).status);
  expect(statuses).toEqual(Array(20).fill(200));
  const refused = await requestFrom(url('/metrics'), client);
  expect(refused.status).toBe(429);
  expect(JSON.parse(refused.body)).toEqual({
    success: false,
    error: 'Rate limit exceeded',
    code: 'RATE_LIMIT_EXCEEDED',
  });
  expect(refused.headers).toMatchObject({
    'x-ratelimit-limit': '100',
    'x-ratelimit-window': '60s',
  });
});
