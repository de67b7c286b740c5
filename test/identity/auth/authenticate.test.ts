/**
 * The authentication middleware on its own, with stand-ins for tokens and sessions: identity
 * only from verified credentials, the declared access rules, and X-Wallet-Address kept only
 * when it names the caller.
 */
import { createContextValues } from '@connectrpc/connect';
import { Code, ConnectError } from '@connectrpc/connect';
import { AdminService } from '../../../src/gen/service/v1/admin_pb.js';
import { AuthService } from '../../../src/gen/service/v1/auth_pb.js';
import { SessionService } from '../../../src/gen/service/v1/session_pb.js';
import { RestHandlerContext } from '../../../src/gateway/rest-handler-context.js';
import { authenticate } from '../../../src/identity/auth/authenticate.js';
import type { AuthenticationDependencies } from '../../../src/identity/auth/authenticate.js';
import { callerKey } from '../../../src/identity/auth/caller.js';
import { SESSION_COOKIE } from '../../../src/platform/api/cookie-names.js';
import { unauthenticated } from '../../../src/platform/errors/api-error.js';
import type { DescMethod } from '@bufbuild/protobuf';

const ALICE = '0x00000000000000000000000000000000000a11ce';

const deps = (permissions: string[] = []): AuthenticationDependencies =>
  ({
    verifyAccessToken: async (token: string) => {
      if (token !== 'good-token') throw unauthenticated('The access token is invalid');
      return {
        address: ALICE,
        sessionId: 's1',
        tokenId: 't1',
        expiresAt: new Date(Date.now() + 60_000),
      };
    },
    revocations: { status: async () => 'live' },
    sessions: { touch: async () => true, findByCookie: async () => null },
    accounts: { find: async () => ({ permissions }) },
  }) as unknown as AuthenticationDependencies;

function contextFor(
  method: { parent: unknown; name: string },
  headers: Record<string, string>,
  httpMethod = 'POST',
) {
  return new RestHandlerContext(
    method.parent as never,
    method as never,
    httpMethod,
    '/x',
    new Map(Object.entries(headers)),
    createContextValues(),
  );
}

async function run(
  middlewareDeps: AuthenticationDependencies,
  method: DescMethod,
  headers: Record<string, string>,
) {
  const context = contextFor(method, headers);
  await authenticate(middlewareDeps)({ method, request: {}, context }, async () => ({}));
  return context;
}

async function failure(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ConnectError) return error;
  }
  throw new Error('expected a ConnectError');
}

const listSessions = SessionService.method.listSessions;
const checkUsername = AuthService.method.checkUsername;

it('takes the caller from a verified Bearer token', async () => {
  const context = await run(deps(), listSessions, { authorization: 'Bearer good-token' });
  expect(context.values.get(callerKey)).toMatchObject({
    address: ALICE,
    sessionId: 's1',
    via: 'bearer',
  });
});

it('refuses a protected RPC without credentials, or with a bad or malformed token', async () => {
  for (const headers of [
    {},
    { authorization: 'Bearer bad' },
    { authorization: 'Basic abc' },
  ] as Record<string, string>[]) {
    expect((await failure(run(deps(), listSessions, headers))).code).toBe(Code.Unauthenticated);
  }
});

it('runs a public RPC without credentials, but never ignores a bad presented token', async () => {
  const context = await run(deps(), checkUsername, {});
  expect(context.values.get(callerKey)).toBeUndefined();
  expect((await failure(run(deps(), checkUsername, { authorization: 'Bearer bad' }))).code).toBe(
    Code.Unauthenticated,
  );
});

it('refuses a public RPC that presents an unknown session cookie, and ignores an empty one', async () => {
  const error = await failure(
    run(deps(), checkUsername, { cookie: `${SESSION_COOKIE}=s9.not-a-session` }),
  );
  expect(error.code).toBe(Code.Unauthenticated);
  const context = await run(deps(), checkUsername, { cookie: `${SESSION_COOKIE}=; theme=dark` });
  expect(context.values.get(callerKey)).toBeUndefined();
});

it('passes an anonymous public call on synchronously: the answer of next() itself, no promise', () => {
  const answer = { available: true };
  const context = contextFor(checkUsername, { 'x-wallet-address': ALICE });
  const result = authenticate(deps())(
    { method: checkUsername, request: {}, context },
    () => answer,
  );
  expect(result).toBe(answer);
  expect(context.requestHeader.get('x-wallet-address')).toBeNull();
});

it('accepts only the session cookie on cookie-only RPCs', async () => {
  const error = await failure(
    run(deps(), SessionService.method.getCurrentSession, { authorization: 'Bearer good-token' }),
  );
  expect(error.code).toBe(Code.Unauthenticated);
});

it('keeps X-Wallet-Address only when it names the caller', async () => {
  const own = await run(deps(), listSessions, {
    authorization: 'Bearer good-token',
    'x-wallet-address': ALICE.toUpperCase().replace('0X', '0x'),
  });
  expect(own.requestHeader.get('x-wallet-address')).not.toBeNull();
  const foreign = await run(deps(), listSessions, {
    authorization: 'Bearer good-token',
    'x-wallet-address': '0x' + 'b'.repeat(40),
  });
  expect(foreign.requestHeader.get('x-wallet-address')).toBeNull();
  const anonymous = await run(deps(), checkUsername, { 'x-wallet-address': ALICE });
  expect(anonymous.requestHeader.get('x-wallet-address')).toBeNull();
});

it('enforces a declared permission', async () => {
  const unlock = AdminService.method.unlockLockout;
  expect((await failure(run(deps(), unlock, { authorization: 'Bearer good-token' }))).code).toBe(
    Code.PermissionDenied,
  );
  await expect(
    run(deps(['admin:view_audit_logs']), unlock, { authorization: 'Bearer good-token' }),
  ).resolves.toBeDefined();
});
