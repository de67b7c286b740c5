/**
 * Refresh-token rotation and revocation. A refresh token is exchanged once: the exchange marks
 * it used atomically, so of two concurrent exchanges only one wins; a token presented after its
 * exchange is reuse, which revokes the family (ends the session): whoever holds a stolen copy
 * and the legitimate client both lose access, and the user signs in again.
 */
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { HandlerContext } from '@connectrpc/connect';
import type {
  RefreshTokenRequest,
  RefreshTokenResponseSchema,
  RevokeTokenRequest,
  RevokeTokenResponseSchema,
} from '../../gen/service/v1/auth_pb.js';
import {
  invalidArgument,
  permissionDenied,
  unauthenticated,
} from '../../platform/errors/api-error.js';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { AuditLog } from '../audit/audit-log.js';
import { requireCaller } from '../auth/caller.js';
import type { RefreshTokenRepository } from '../sessions/refresh-token-repository.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { DpopValidator } from '../tokens/dpop.js';
import { TokenVerificationError } from '../tokens/token-service.js';
import type { TokenService } from '../tokens/token-service.js';
import { dpopKeyOf } from './dpop-binding.js';
import { asUnauthenticated } from './token-errors.js';
import type { TokenPairIssuer } from './token-pair.js';

export interface RefreshDependencies {
  readonly tokens: TokenService;
  readonly refreshTokens: RefreshTokenRepository;
  readonly tokenPairs: TokenPairIssuer;
  readonly sessions: SessionManager;
  readonly dpop: DpopValidator;
  readonly audit: AuditLog;
}

export function refreshToken(deps: RefreshDependencies) {
  const { sessions, refreshTokens, audit } = deps;
  return async (
    request: RefreshTokenRequest,
    context: HandlerContext,
  ): Promise<MessageInitShape<typeof RefreshTokenResponseSchema>> => {
    if (request.refreshToken === '') throw invalidArgument('refresh_token is required');
    const call = callInfoOf(context);
    const claims = await asUnauthenticated(
      deps.tokens.verifyRefreshToken(request.refreshToken),
      'refresh token',
    );
    // Everything that can refuse a legitimate request is checked before the exchange: a refused
    // request must not use up the token, and once the token is exchanged nothing may fail, so
    // that of two concurrent exchanges exactly one is answered with the new pair.
    const session = await sessions.findActive(claims.sid);
    if (!session) throw unauthenticated('The session has ended');
    const dpopJkt = await dpopKeyOf(deps.dpop, context, session.dpopJkt ?? undefined);
    const exchanged = await refreshTokens.exchange(claims.jti);
    if (!exchanged) {
      const known = await refreshTokens.find(claims.jti);
      if (!known) throw unauthenticated('The refresh token is not valid');
      await sessions.end(known.sessionId, 'refresh_token_reuse');
      await audit.record(call, 'refresh_reuse_detected', {
        address: known.address,
        sessionId: known.sessionId,
      });
      throw unauthenticated(
        'This refresh token was already used; the session has been ended',
        'REPLAY_DETECTED',
      );
    }
    await sessions.touch(session._id, true);
    const pair = await deps.tokenPairs.issue({
      address: session.address,
      sessionId: session._id,
      parentId: exchanged._id,
      dpopJkt,
    });
    await audit.record(call, 'refresh', { address: session.address, sessionId: session._id });
    return { success: true, message: 'Tokens refreshed', ...pair };
  };
}

export interface RevokeDependencies {
  readonly tokens: TokenService;
  readonly sessions: SessionManager;
  readonly audit: AuditLog;
}

export function revokeToken(deps: RevokeDependencies) {
  return async (
    request: RevokeTokenRequest,
    context: HandlerContext,
  ): Promise<MessageInitShape<typeof RevokeTokenResponseSchema>> => {
    const caller = requireCaller(context);
    if (request.refreshToken === '') throw invalidArgument('refresh_token is required');
    let claims;
    try {
      claims = await deps.tokens.verifyRefreshToken(request.refreshToken);
    } catch (error) {
      // An expired token is harmless already; anything else is not a refresh token of ours.
      if (error instanceof TokenVerificationError && error.failure === 'expired')
        return { success: true, message: 'Already expired', revoked: false };
      if (error instanceof TokenVerificationError)
        throw invalidArgument('refresh_token is not a refresh token of this service');
      throw error;
    }
    if (claims.sub !== caller.address)
      throw permissionDenied('This refresh token belongs to another account');
    const revoked = await deps.sessions.end(claims.sid, 'refresh_token_revoked');
    await deps.audit.record(callInfoOf(context), 'refresh_revoked', {
      address: caller.address,
      sessionId: claims.sid,
    });
    return {
      success: true,
      message: revoked ? 'Refresh token revoked' : 'Already revoked',
      revoked,
    };
  };
}
