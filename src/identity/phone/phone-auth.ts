/**
 * What the PhoneAuthService RPCs share: identity, the phone bindings, the SMS codes, the
 * verification tokens and the login challenges; and how a number is locked out.
 *
 * A number's failures count where an operator can clear them: on the account bound to it (the
 * `user` lockout of AdminService.UnlockLockout, shared with that account's other sign-ins), or,
 * while no account is bound, on the phone hash itself. The client IP counts too, as for
 * wallet sign-ins.
 */
import type { Identity } from '../identity-area.js';
import type { LockoutTarget } from '../lockout/lockout-report.js';
import { LoginChallenges } from './login-challenges.js';
import type { PhoneAccounts } from './phone-accounts.js';
import { SmsCodes } from './sms-codes.js';
import { VerificationTokens } from './verification-tokens.js';

export interface PhoneAuth {
  readonly identity: Identity;
  readonly phoneAccounts: PhoneAccounts;
  readonly codes: SmsCodes;
  readonly verifications: VerificationTokens;
  readonly challenges: LoginChallenges;
}

export function createPhoneAuth(identity: Identity): PhoneAuth {
  return {
    identity,
    phoneAccounts: identity.phoneAccounts,
    codes: new SmsCodes(identity.sharedState),
    verifications: new VerificationTokens(identity.sharedState),
    challenges: new LoginChallenges(identity.sharedState, identity.config.serviceName),
  };
}

/** The lockout of a number (see the header comment). */
export async function numberLockout(phone: PhoneAuth, phoneHash: string): Promise<LockoutTarget> {
  const bound = await phone.phoneAccounts.findByHash(phoneHash);
  return ['user', bound?._id ?? phoneHash];
}

/** The number's and the client's lockouts, for the RPCs that count failures. */
export async function phoneLockouts(phone: PhoneAuth, phoneHash: string, clientIp: string): Promise<LockoutTarget[]> {
  return [await numberLockout(phone, phoneHash), ['ip', clientIp]];
}
