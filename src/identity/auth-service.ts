/** AuthService: wallet sign-in, username checks, token rotation and revocation, tickets, CSRF. */
import type { HandlerContext } from '@connectrpc/connect';
import type { CheckUsernameRequest } from '../gen/service/v1/auth_pb.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import { optionalCaller, requireCaller } from './auth/caller.js';
import { setCsrfCookie } from './auth/cookies.js';
import type { CookiePolicy } from './auth/cookies.js';
import { USERNAME_MAX_INPUT, checkUsername, isReservedUsername } from '../accounts/username.js';
import { initialize } from './signin/initialize.js';
import type { InitializeDependencies } from './signin/initialize.js';
import { refreshToken, revokeToken } from './signin/refresh.js';
import type { RefreshDependencies, RevokeDependencies } from './signin/refresh.js';
import { WS_TICKET_TTL_SECONDS } from './sessions/ws-tickets.js';
import type { WsTickets } from './sessions/ws-tickets.js';
import type { Usernames } from '../accounts/usernames.js';

export type AuthServiceDependencies = InitializeDependencies &
  RefreshDependencies &
  RevokeDependencies & {
    readonly wsTickets: WsTickets;
    readonly cookies: CookiePolicy;
    /** Names held for their former owners count as taken. */
    readonly usernames: Usernames;
  };

export function createAuthService(deps: AuthServiceDependencies) {
  return {
    initialize: initialize(deps),
    refreshToken: refreshToken(deps),
    revokeToken: revokeToken(deps),

    async checkUsername(request: CheckUsernameRequest, context: HandlerContext) {
      if (request.username === '') throw invalidArgument('username is required');
      if (request.username.length > USERNAME_MAX_INPUT)
        throw invalidArgument(`username has at most ${USERNAME_MAX_INPUT} characters`);
      const check = checkUsername(request.username);
      if (!check.valid)
        return {
          success: true,
          message: check.reason,
          username: check.username,
          valid: false,
          available: false,
          reason: 'invalid',
        };
      if (isReservedUsername(check.username)) {
        return {
          success: true,
          message: 'The username is reserved',
          username: check.username,
          valid: true,
          available: false,
          reason: 'reserved',
        };
      }
      const caller = optionalCaller(context)?.address ?? '';
      const [holder, held] = await Promise.all([
        deps.accounts.findByUsername(check.username),
        deps.usernames.isHeldAgainst(check.username, caller),
      ]);
      const available = (holder === null || holder._id === caller) && !held;
      return {
        success: true,
        message: available ? 'The username is available' : 'The username is taken',
        username: check.username,
        valid: true,
        available,
        reason: available ? '' : 'taken',
      };
    },

    async createWsTicket(_: unknown, context: HandlerContext) {
      const caller = requireCaller(context);
      const ticket = await deps.wsTickets.issue({
        address: caller.address,
        sessionId: caller.sessionId,
      });
      return {
        success: true,
        message: 'WebSocket ticket issued',
        ticket,
        expiresIn: WS_TICKET_TTL_SECONDS,
        expiresAt: new Date(Date.now() + WS_TICKET_TTL_SECONDS * 1000).toISOString(),
      };
    },

    async rotateCsrfToken(_: unknown, context: HandlerContext) {
      const caller = requireCaller(context);
      const csrfToken = await deps.sessions.rotateCsrf(caller.sessionId);
      setCsrfCookie(context, deps.cookies, csrfToken);
      return { success: true, message: 'CSRF token rotated', csrfToken };
    },
  };
}
