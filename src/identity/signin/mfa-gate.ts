/**
 * The MFA gate at the end of every first factor (wallet signature in Initialize, identity-key
 * signature in PhoneLogin): a session, unless the account has MFA on and the request names no
 * trusted device of it, in which case the sign-in becomes MFA-pending (mfa/pending-sign-ins.ts)
 * and VerifyMfa finishes it later. The second factor's parts reach the gate through the two
 * small interfaces below, so sign-in does not depend on the MFA folder (which depends on it).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { Account } from '../../accounts/account.js';
import type { Session } from '../sessions/session.js';
import type { SessionStarter, StartedSession } from './session-starter.js';

export type SignInOutcome =
  | { mfaRequired: false; session: StartedSession }
  | { mfaRequired: true; mfaToken: string; mfaExpiresAt: string };

export interface FirstFactor {
  account: Account;
  authMethod: Session['authMethod'];
  deviceName: string;
  /** From the request; empty when none. */
  trustedDeviceToken: string;
  dpopJkt: string | null;
}

/** The devices an account trusts at the MFA step (mfa/trusted-devices.ts). */
export interface DeviceTrust {
  vouchesFor(address: string, trustedDeviceToken: string): Promise<boolean>;
}

/** Where an MFA-pending sign-in is kept until VerifyMfa (mfa/pending-sign-ins.ts). */
export interface PendingSignInStart {
  begin(signIn: {
    address: string;
    authMethod: Session['authMethod'];
    deviceName: string;
  }): Promise<{ mfaToken: string; mfaExpiresAt: string }>;
}

export interface MfaGateDependencies {
  readonly trustedDevices: DeviceTrust;
  readonly pendingSignIns: PendingSignInStart;
  readonly sessionStarter: SessionStarter;
}

export class MfaGate {
  constructor(private readonly deps: MfaGateDependencies) {}

  async pass(context: HandlerContext, factor: FirstFactor): Promise<SignInOutcome> {
    const { account, authMethod, deviceName } = factor;
    if (
      account.mfaEnabled &&
      !(await this.deps.trustedDevices.vouchesFor(account._id, factor.trustedDeviceToken))
    ) {
      return {
        mfaRequired: true,
        ...(await this.deps.pendingSignIns.begin({ address: account._id, authMethod, deviceName })),
      };
    }
    const session = await this.deps.sessionStarter.start(context, {
      address: account._id,
      authMethod,
      deviceName,
      dpopJkt: factor.dpopJkt,
    });
    return { mfaRequired: false, session };
  }
}

/** The token members of a sign-in response (InitializeResponse, PhoneLoginResponse). */
export function signInMembers(outcome: SignInOutcome) {
  return outcome.mfaRequired
    ? {
        message: 'MFA verification required',
        tokenType: 'Bearer',
        mfaRequired: true,
        mfaToken: outcome.mfaToken,
        mfaExpiresAt: outcome.mfaExpiresAt,
      }
    : { message: 'Signed in', ...outcome.session };
}
