/** SessionService: reading, resuming and ending sessions (documented in session.proto). */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  DeleteSessionRequest,
  ListSessionsRequest,
  LogoutAllRequest,
} from '../gen/service/v1/session_pb.js';
import { invalidArgument, notFound, unauthenticated } from '../platform/errors/api-error.js';
import { callInfoOf } from '../platform/rpc/call-context.js';
import type { Account } from '../accounts/account.js';
import { requireCaller } from './auth/caller.js';
import type { Caller } from './auth/caller.js';
import { clearSessionCookies, setSessionCookies } from './auth/cookies.js';
import type { CookiePolicy } from './auth/cookies.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { AuditLog } from './audit/audit-log.js';
import type { Revocations } from './sessions/revocations.js';
import { MAX_SESSIONS } from './sessions/session-manager.js';
import type { SessionManager } from './sessions/session-manager.js';
import type { Session } from './sessions/session.js';

export interface SessionServiceDependencies {
  readonly sessions: SessionManager;
  readonly revocations: Revocations;
  readonly accounts: AccountRepository;
  readonly cookies: CookiePolicy;
  readonly audit: AuditLog;
}

export function createSessionService(deps: SessionServiceDependencies) {
  const { sessions, audit, accounts, cookies } = deps;

  const sessionView = (session: Session, caller: Caller) => ({
    id: session._id,
    deviceName: session.deviceName,
    userAgent: session.userAgent,
    ip: session.ip,
    createdAt: session.createdAt.toISOString(),
    lastActiveAt: session.lastActiveAt.toISOString(),
    expiresAt: session.expiresAt.toISOString(),
    current: session._id === caller.sessionId,
    authMethod: session.authMethod,
  });
  const userView = (account: Account | null, address: string) => ({
    address,
    username: account?.username ?? '',
    displayName: account?.displayName ?? '',
    mfaEnabled: account?.mfaEnabled ?? false,
  });
  const activeSession = async (caller: Caller) => {
    const session = await sessions.findActive(caller.sessionId);
    if (!session) throw unauthenticated('The session has ended');
    return session;
  };
  const endCurrent = async (context: HandlerContext, reason: string) => {
    const caller = requireCaller(context);
    await sessions.end(caller.sessionId, reason);
    await audit.record(callInfoOf(context), 'logout', {
      address: caller.address,
      sessionId: caller.sessionId,
      detail: reason,
    });
    return caller;
  };

  return {
    async resumeSession(_: unknown, context: HandlerContext) {
      const caller = requireCaller(context);
      const session = await activeSession(caller);
      await sessions.touch(session._id, true);
      const { cookieValue, csrfToken } = await sessions.reissueCookie(session._id);
      setSessionCookies(context, cookies, cookieValue, csrfToken);
      const current = await activeSession(caller);
      return {
        success: true,
        message: 'Session resumed',
        session: sessionView(current, caller),
        user: userView(await accounts.find(caller.address), caller.address),
        csrfToken,
      };
    },

    async getCurrentSession(_: unknown, context: HandlerContext) {
      const caller = requireCaller(context);
      return {
        success: true,
        message: 'Current session',
        session: sessionView(await activeSession(caller), caller),
        user: userView(await accounts.find(caller.address), caller.address),
      };
    },

    async listSessions(request: ListSessionsRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      if (request.pageSize < 0 || request.pageSize > 200)
        throw invalidArgument('page_size must be between 0 and 200');
      if (request.cursor !== '')
        throw invalidArgument(
          `cursor is not valid: an account has at most ${MAX_SESSIONS} sessions, listed in one page`,
        );
      const active = await sessions.listActive(caller.address);
      const ordered = [
        ...active.filter((s) => s._id === caller.sessionId),
        ...active.filter((s) => s._id !== caller.sessionId),
      ];
      return {
        success: true,
        message: `${ordered.length} active sessions`,
        sessions: ordered.map((s) => sessionView(s, caller)),
        nextCursor: '',
      };
    },

    async deleteSession(request: DeleteSessionRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const target = request.id === '' ? null : await sessions.findActive(request.id);
      if (!target || target.address !== caller.address)
        throw notFound('No active session with this id');
      await sessions.end(target._id, 'deleted');
      await audit.record(callInfoOf(context), 'session_ended', {
        address: caller.address,
        sessionId: target._id,
        detail: 'deleted',
      });
      return { success: true, message: 'Session ended', current: target._id === caller.sessionId };
    },

    async logoutAll(request: LogoutAllRequest, context: HandlerContext) {
      const caller = requireCaller(context);
      const ended = await sessions.endAll(
        caller.address,
        'logout_all',
        request.keepCurrent ? caller.sessionId : undefined,
      );
      await audit.record(callInfoOf(context), 'logout_all', {
        address: caller.address,
        sessionId: caller.sessionId,
        detail: `${ended} ended`,
      });
      return { success: true, message: `${ended} sessions ended`, endedCount: ended };
    },

    async logout(_: unknown, context: HandlerContext) {
      await endCurrent(context, 'logout');
      return { success: true, message: 'Signed out' };
    },

    async logoutCookieSession(_: unknown, context: HandlerContext) {
      const caller = await endCurrent(context, 'cookie_logout');
      if (caller.accessToken)
        await deps.revocations.denyToken(
          caller.sessionId,
          caller.accessToken.id,
          caller.accessToken.expiresAt,
        );
      clearSessionCookies(context, cookies);
      return { success: true, message: 'Signed out' };
    },
  };
}
