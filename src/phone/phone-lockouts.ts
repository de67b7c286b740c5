/**
 * How a number is locked out. A number's failures count where an operator can clear them: on
 * the account bound to it (the `user` lockout of AdminService.UnlockLockout, shared with that
 * account's other sign-ins), or, while no account is bound, on the phone hash itself. The
 * client IP counts too, as for wallet sign-ins.
 */
import type { LockoutTarget } from '../identity/lockout/lockout-report.js';
import type { PhoneAccounts } from './phone-accounts.js';

/** The lockout of a number (see the header comment). */
export async function numberLockout(
  phoneAccounts: PhoneAccounts,
  phoneHash: string,
): Promise<LockoutTarget> {
  const bound = await phoneAccounts.findByHash(phoneHash);
  return ['user', bound?._id ?? phoneHash];
}

/** The number's and the client's lockouts, for the RPCs that count failures. */
export async function phoneLockouts(
  phoneAccounts: PhoneAccounts,
  phoneHash: string,
  clientIp: string,
): Promise<LockoutTarget[]> {
  return [await numberLockout(phoneAccounts, phoneHash), ['ip', clientIp]];
}
