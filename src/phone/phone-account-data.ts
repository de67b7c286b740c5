/**
 * The phone binding in an account move or deletion: a move re-binds the number to the new
 * address, a deletion removes the binding (`PhoneAccounts.move`, `remove`: both idempotent).
 * The walk runs this owner just before identity's, whose `close` has already ended every session.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { PhoneAccounts } from './phone-accounts.js';

export class PhoneAccountData implements AccountDataOwner {
  readonly name = 'phone';

  constructor(private readonly phoneAccounts: PhoneAccounts) {}

  moveAccount(from: string, to: string): Promise<void> {
    return this.phoneAccounts.move(from, to);
  }

  deleteAccount(address: string): Promise<void> {
    return this.phoneAccounts.remove(address);
  }
}
