/**
 * The end of every first factor (wallet signature in Initialize, identity-key signature in
 * PhoneLogin): a session, unless the account has MFA on and the request names no trusted
 * device of it, in which case the sign-in becomes MFA-pending (see pending-sign-ins.ts) and
 * VerifyMfa opens the session later.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { Account } from '../accounts/account.js';
import type { Identity } from '../identity-area.js';
import type { Session } from '../sessions/session.js';
import { startSession } from './session-starter.js';
import type { StartedSession } from './session-starter.js';

export type SignInOutcome = { mfaRequired: false; session: StartedSession } | { mfaRequired: true; mfaToken: string; mfaExpiresAt: string };

export interface FirstFactor {
  account: Account;
  authMethod: Session['authMethod'];
  deviceName: string;
  /** From the request; empty when none. */
  trustedDeviceToken: string;
  dpopJkt: string | null;
}

export async function signInOrRequireMfa(identity: Identity, context: HandlerContext, factor: FirstFactor): Promise<SignInOutcome> {
  const { account, authMethod, deviceName } = factor;
  if (account.mfaEnabled && !(await identity.mfa.trustedDevices.vouchesFor(account._id, factor.trustedDeviceToken))) {
    return { mfaRequired: true, ...(await identity.pendingSignIns.begin({ address: account._id, authMethod, deviceName })) };
  }
  return { mfaRequired: false, session: await startSession(identity, context, { address: account._id, authMethod, deviceName, dpopJkt: factor.dpopJkt }) };
}

/** The token members of a sign-in response (InitializeResponse, PhoneLoginResponse). */
export function signInMembers(outcome: SignInOutcome) {
  return outcome.mfaRequired
    ? { message: 'MFA verification required', tokenType: 'Bearer', mfaRequired: true, mfaToken: outcome.mfaToken, mfaExpiresAt: outcome.mfaExpiresAt }
    : { message: 'Signed in', ...outcome.session };
}

/** The AuthUser of every sign-in response. */
export const authUserOf = (account: Account) => ({
  address: account._id,
  username: account.username,
  displayName: account.displayName,
  mfaEnabled: account.mfaEnabled,
});
