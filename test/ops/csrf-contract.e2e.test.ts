/**
 * The CSRF refusal agrees with its contract everywhere. The served OpenAPI document lists
 * `403 CSRF_TOKEN_INVALID` for exactly the unsafe operations, the proto comments that describe
 * the refusal name that code, and a real cookie-session call without `X-CSRF-Token` gets exactly
 * that answer on every unsafe operation over REST, and over gRPC.
 */
import { fileURLToPath } from 'node:url';
import type { Operation, OperationMethod, Response } from '../../src/ops/openapi/openapi-types.js';
import { serviceForThisFile } from '../support/service-for-tests.js';
import { cookieAuth, sessionCookies } from '../support/session-api.js';
import { grpc, grpcClient, unary } from '../support/grpc-client.js';
import { signIn } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';

const running = serviceForThisFile();
let session: SignedIn;
let document: {
  paths: Record<string, Record<OperationMethod, Operation>>;
  components: { responses: Record<string, Response> };
};
beforeAll(async () => {
  session = await signIn(running.service.baseUrl);
  document = (await (
    await fetch(`${running.service.baseUrl}/swagger/openapi.json`)
  ).json()) as typeof document;
});

const UNSAFE: readonly string[] = ['post', 'put', 'patch', 'delete'];

function operations(): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The 403 response of an operation, resolved. */
function forbiddenOf(operation: Operation): Response {
  const ref = (operation.responses['403'] as { $ref: string }).$ref;
  return document.components.responses[ref.replace('#/components/responses/', '')] as Response;
}

const documentsCsrfCode = (response: Response) =>
  response.description.includes('CSRF_TOKEN_INVALID') &&
  Object.values(response.content?.['application/json']?.examples ?? {}).some(
    (example) => (example.value as { code?: string }).code === 'CSRF_TOKEN_INVALID',
  );

it('the OpenAPI document lists 403 CSRF_TOKEN_INVALID on every unsafe operation, and only there', () => {
  const listed = operations().map(({ path, method, operation }) => ({
    operation: `${method} ${path}`,
    csrf: documentsCsrfCode(forbiddenOf(operation)),
  }));
  expect(listed.length).toBeGreaterThan(100);
  expect(listed).toEqual(
    listed.map(({ operation }) => ({
      operation,
      csrf: UNSAFE.includes(operation.split(' ')[0] as string),
    })),
  );
});

it('the RPC comments that describe the refusal name CSRF_TOKEN_INVALID, never FORBIDDEN', () => {
  const describing = operations().filter(({ operation }) =>
    /`403 \w+` \([^)]*X-CSRF-Token/.test(operation.description ?? ''),
  );
  expect(describing.map(({ operation }) => operation.operationId).sort()).toEqual(
    expect.arrayContaining(['AuthService_RotateCsrfToken', 'SessionService_LogoutCookieSession']),
  );
  for (const { operation } of describing)
    expect(operation.description).not.toMatch(/`403 FORBIDDEN` \([^)]*X-CSRF-Token/);
});

it('a cookie-session call without X-CSRF-Token gets 403 CSRF_TOKEN_INVALID on every unsafe operation', async () => {
  const unsafe = operations().filter(({ method }) => UNSAFE.includes(method));
  const answers = await Promise.all(
    unsafe.map(async ({ path, method }) => {
      const response = await fetch(running.api.url(path.replace(/\{[^}]+\}/g, 'sample')), {
        method: method.toUpperCase(),
        headers: { 'content-type': 'application/json', ...cookieAuth(sessionCookies(session)) },
        body: '{}',
      });
      return {
        operation: `${method} ${path}`,
        status: response.status,
        code: ((await response.json()) as { code?: string }).code,
      };
    }),
  );
  expect(answers).toEqual(
    answers.map(({ operation }) => ({ operation, status: 403, code: 'CSRF_TOKEN_INVALID' })),
  );
});

it('the same refusal over gRPC: PERMISSION_DENIED with the reason CSRF_TOKEN_INVALID', async () => {
  const client = grpcClient(
    running.service.grpcAddress,
    fileURLToPath(new URL('../../proto/service/v1/auth.proto', import.meta.url)),
    'service.v1.AuthService',
  );
  const metadata = new grpc.Metadata();
  metadata.set('cookie', cookieAuth(sessionCookies(session)).cookie!);
  try {
    const error = (await unary(client, 'CreateWsTicket', {}, metadata).catch(
      (thrown: unknown) => thrown,
    )) as grpc.ServiceError;
    expect({ code: error.code, reason: error.metadata?.get('x-error-code') }).toEqual({
      code: grpc.status.PERMISSION_DENIED,
      reason: ['CSRF_TOKEN_INVALID'],
    });
  } finally {
    client.close();
  }
});
