/**
 * What every sign-in ends with, whichever way the user proved who they are (wallet signature,
 * phone, second factor): a new session, its token pair, and the session and CSRF cookies.
 */
import type { HandlerContext } from '@connectrpc/connect';
import { callInfoOf } from '../../platform/rpc/call-context.js';
import { setSessionCookies } from '../auth/cookies.js';
import type { Identity } from '../identity-area.js';
import type { Session } from '../sessions/session.js';
import { issueTokenPair } from './token-pair.js';
import type { TokenPairFields } from './token-pair.js';

export interface StartedSession extends TokenPairFields {
  csrfToken: string;
}

export async function startSession(
  identity: Identity,
  context: HandlerContext,
  init: { address: string; authMethod: Session['authMethod']; deviceName: string; dpopJkt: string | null },
): Promise<StartedSession> {
  const call = callInfoOf(context);
  const userAgent = (context.requestHeader.get('user-agent') ?? '').slice(0, 512);
  const opened = await identity.sessions.open({
    ...init,
    // Without a label the session is named after its client, so the list stays readable.
    deviceName: init.deviceName || userAgent.slice(0, 64),
    userAgent,
    ip: call.clientIp,
  });
  for (const sessionId of opened.evicted) {
    await identity.audit.record(call, 'session_ended', { address: init.address, sessionId, detail: 'session_limit' });
  }
  const pair = await issueTokenPair(identity.tokens, identity.refreshTokens, {
    address: init.address,
    sessionId: opened.session._id,
    parentId: null,
    dpopJkt: init.dpopJkt,
  });
  setSessionCookies(context, identity.cookies, opened.cookieValue, opened.csrfToken);
  return { ...pair, csrfToken: opened.csrfToken };
}
