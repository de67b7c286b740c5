/**
 * The authentication middleware, for REST and every RPC transport alike. Each RPC declares its
 * access rule in the proto (`(access)`): public RPCs run without credentials (but a credential
 * that is presented must be valid), cookie-only RPCs accept only the session cookie, and all
 * others need a Bearer access token or the session cookie. Cookie-authenticated unsafe calls
 * must carry the CSRF token (csrf.ts); signature-gated RPCs also a fresh `X-Signature` of the
 * request by the caller's wallet (request-signatures.ts). `X-Wallet-Address` reaches services only when it names the caller.
 *
 * The `mfa_token` of an MFA-pending sign-in is a Bearer token too, but it authenticates only
 * MFA_PENDING_METHODS (completing the MFA step), and its holder is put in the context under
 * its own key: it is never a Caller, so no other RPC can mistake it for a session.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import { accessOf } from '../../platform/api/api-services.js';
import { SESSION_COOKIE } from '../../platform/api/cookie-names.js';
import { permissionDenied, unauthenticated } from '../../platform/errors/api-error.js';
import { requestHeaderOf } from '../../platform/rpc/request-header.js';
import type { RpcMiddleware } from '../../platform/rpc/rpc-pipeline.js';
import type { AccountRepository } from '../../accounts/account-repository.js';
import type { Revocations } from '../sessions/revocations.js';
import type { SessionManager } from '../sessions/session-manager.js';
import { callerKey } from './caller.js';
import type { Caller } from './caller.js';
import { readCookie } from './cookies.js';
import { checkCsrfToken, csrfTokenRequired } from './csrf.js';
import type { RequestSignatures } from './request-signatures.js';
import {
  MFA_PENDING_METHODS,
  looksLikeMfaToken,
  mfaPendingCallerKey,
} from './mfa-pending-caller.js';
import type { MfaPendingCaller } from './mfa-pending-caller.js';

/** Verifies an access token (signature, type, audience, expiry); throws a 401 ConnectError otherwise. */
export type AccessTokenVerifier = (
  token: string,
) => Promise<{ address: string; sessionId: string; tokenId: string; expiresAt: Date }>;

export interface AuthenticationDependencies {
  readonly verifyAccessToken: AccessTokenVerifier;
  readonly sessions: SessionManager;
  readonly revocations: Revocations;
  readonly accounts: AccountRepository;
  readonly verifyMfaToken: (token: string) => Promise<MfaPendingCaller>;
  /** The `X-Signature` check of signature-gated RPCs. */
  readonly requestSignatures: RequestSignatures;
}

const WALLET_HEADER = 'x-wallet-address';

export function authenticate(deps: AuthenticationDependencies): RpcMiddleware {
  const withCredentials = authenticateCall(deps);
  return (call, next) => {
    const { method, context } = call;
    // A public RPC called without any credential has nothing to verify: it runs as anonymous
    // at once, without a promise (GET /api/version and the like). Any credential that is
    // presented, valid or not, goes the whole way below and is refused when it is bad.
    if (isPlainPublic(method) && !presentsCredential(context)) {
      dropForeignWalletHeader(context, undefined);
      return next();
    }
    return withCredentials(call, next);
  };
}

/** Public, and not one that takes only the session cookie (which it then requires). */
function isPlainPublic(method: DescMethod): boolean {
  const rule = accessOf(method);
  return rule?.public === true && !rule.cookieSessionOnly;
}

function presentsCredential(context: HandlerContext): boolean {
  if (requestHeaderOf(context, 'authorization') !== null) return true;
  const cookie = readCookie(context, SESSION_COOKIE);
  return cookie !== undefined && cookie !== '';
}

function authenticateCall(deps: AuthenticationDependencies): RpcMiddleware {
  return async ({ method, request, context }, next) => {
    if (MFA_PENDING_METHODS.has(method)) {
      const pending = await fromMfaToken(deps, context);
      if (pending) {
        context.values.set(mfaPendingCallerKey, pending);
        dropForeignWalletHeader(context, pending);
        return next();
      }
    }
    const rule = accessOf(method);
    const caller = rule?.cookieSessionOnly
      ? await fromCookie(deps, context, true)
      : await fromCredentials(deps, context, rule?.public === true);
    if (!caller && !rule?.public) throw unauthenticated('Authentication required');
    if (caller) {
      context.values.set(callerKey, caller);
      if (rule?.permission) await requirePermission(deps, caller, rule.permission, method);
      if (rule?.signatureRequired)
        await deps.requestSignatures.require(caller.address, method, request, context);
    }
    dropForeignWalletHeader(context, caller);
    return next();
  };
}

async function fromCredentials(
  deps: AuthenticationDependencies,
  context: HandlerContext,
  optional: boolean,
): Promise<Caller | undefined> {
  const authorization = requestHeaderOf(context, 'authorization');
  if (authorization !== null) return fromBearer(deps, authorization);
  return fromCookie(deps, context, !optional);
}

/** The MFA-pending caller when the Bearer token is an `mfa_token`; undefined for any other credential. */
async function fromMfaToken(
  deps: AuthenticationDependencies,
  context: HandlerContext,
): Promise<MfaPendingCaller | undefined> {
  const token = bearerToken(requestHeaderOf(context, 'authorization'));
  return token !== undefined && looksLikeMfaToken(token) ? deps.verifyMfaToken(token) : undefined;
}

/** The token of a well-formed `Bearer` header. The scheme is case-insensitive (RFC 7235); the token is not. */
const bearerToken = (authorization: string | null): string | undefined =>
  authorization === null ? undefined : /^Bearer ([A-Za-z0-9._~+/=-]+)$/i.exec(authorization)?.[1];

async function fromBearer(
  deps: AuthenticationDependencies,
  authorization: string,
): Promise<Caller> {
  const bearer = bearerToken(authorization);
  if (bearer === undefined)
    throw unauthenticated('The Authorization header must be "Bearer <access token>"');
  const token = await deps.verifyAccessToken(bearer);
  const status = await deps.revocations.status(token.sessionId, token.tokenId);
  // Shared state that cannot vouch (rebuilding after a Redis loss) is no proof of life: the store is.
  const ended =
    status === 'ended' ||
    (status === 'unknown' && !(await deps.sessions.findActive(token.sessionId)));
  if (ended || !(await deps.sessions.touch(token.sessionId)))
    throw unauthenticated('The session has ended');
  return {
    address: token.address,
    sessionId: token.sessionId,
    via: 'bearer',
    accessToken: { id: token.tokenId, expiresAt: token.expiresAt },
  };
}

/** With `required`, a missing cookie is a 401; a cookie that is present but invalid always is. */
async function fromCookie(
  deps: AuthenticationDependencies,
  context: HandlerContext,
  required: boolean,
): Promise<Caller | undefined> {
  const value = readCookie(context, SESSION_COOKIE);
  if (value === undefined || value === '') {
    if (required) throw unauthenticated('Authentication required');
    return undefined;
  }
  const session = await deps.sessions.findByCookie(value);
  if (!session) throw unauthenticated('The session has ended');
  if (csrfTokenRequired(context.requestMethod)) checkCsrfToken(context, session.csrfTokenHash);
  await deps.sessions.touch(session._id);
  return { address: session.address, sessionId: session._id, via: 'cookie' };
}

async function requirePermission(
  deps: AuthenticationDependencies,
  caller: Caller,
  permission: string,
  method: DescMethod,
): Promise<void> {
  const account = await deps.accounts.find(caller.address);
  if (!account?.permissions.includes(permission)) {
    throw permissionDenied(`${method.name} requires the permission ${permission}`);
  }
}

function dropForeignWalletHeader(
  context: HandlerContext,
  caller: Pick<Caller, 'address'> | undefined,
): void {
  const claimed = requestHeaderOf(context, WALLET_HEADER);
  if (claimed !== null && claimed.toLowerCase() !== caller?.address)
    context.requestHeader.delete(WALLET_HEADER);
}
