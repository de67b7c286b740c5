/**
 * The second factor in an account move or deletion. A move keeps MFA on with the TOTP secret
 * re-sealed for the new address, but its backup codes (bound to the old address) and trusted
 * devices go; a deletion removes the secret, the backup codes and the trusted devices
 * (`Mfa.move`, `Mfa.disable`: both idempotent). The walk runs this owner just before identity's,
 * whose `close` has already ended every session.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { Mfa } from './mfa.js';

export class MfaAccountData implements AccountDataOwner {
  readonly name = 'mfa';

  constructor(private readonly mfa: Mfa) {}

  moveAccount(from: string, to: string): Promise<void> {
    return this.mfa.move(from, to);
  }

  deleteAccount(address: string): Promise<void> {
    return this.mfa.disable(address);
  }
}
