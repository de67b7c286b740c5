/**
 * Finishing a sign-in, whichever way the user proved who they are (wallet signature, phone,
 * second factor): a new session, its token pair, and the session and CSRF cookies; never for
 * the wallet of a moved or deleted account, nor for a suspended account.
 */
import type { HandlerContext } from '@connectrpc/connect';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import type { RetiredWallets } from '../../accounts/retired-wallets.js';
import type { Suspensions } from '../../accounts/suspensions.js';
import type { AuditLog } from '../audit/audit-log.js';
import { setSessionCookies } from '../auth/cookies.js';
import type { CookiePolicy } from '../auth/cookies.js';
import type { Session } from '../sessions/session.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { TokenPairFields, TokenPairIssuer } from './token-pair.js';

export interface StartedSession extends TokenPairFields {
  csrfToken: string;
}

export interface SessionStarterDependencies {
  readonly sessions: SessionManager;
  readonly tokenPairs: TokenPairIssuer;
  readonly cookies: CookiePolicy;
  readonly audit: AuditLog;
  /** The wallets of moved and deleted accounts, refused whichever way they sign in. */
  readonly retiredWallets: RetiredWallets;
  /** Suspended accounts are refused (`403 ACCOUNT_SUSPENDED`) whichever way they sign in. */
  readonly suspensions: Suspensions;
}

export class SessionStarter {
  constructor(private readonly deps: SessionStarterDependencies) {}

  async start(
    context: HandlerContext,
    init: {
      address: string;
      authMethod: Session['authMethod'];
      deviceName: string;
      dpopJkt: string | null;
    },
  ): Promise<StartedSession> {
    const { sessions, tokenPairs, cookies, audit } = this.deps;
    await this.deps.retiredWallets.refuseRetired(init.address);
    await this.deps.suspensions.refuse(init.address);
    const call = callInfoOf(context);
    const userAgent = (context.requestHeader.get('user-agent') ?? '').slice(0, 512);
    const opened = await sessions.open({
      ...init,
      // Without a label the session is named after its client, so the list stays readable.
      deviceName: init.deviceName || userAgent.slice(0, 64),
      userAgent,
      ip: call.clientIp,
    });
    for (const sessionId of opened.evicted) {
      await audit.record(call, 'session_ended', {
        address: init.address,
        sessionId,
        detail: 'session_limit',
      });
    }
    const pair = await tokenPairs.issue({
      address: init.address,
      sessionId: opened.session._id,
      parentId: null,
      dpopJkt: init.dpopJkt,
    });
    setSessionCookies(context, cookies, opened.cookieValue, opened.csrfToken);
    return { ...pair, csrfToken: opened.csrfToken };
  }
}
