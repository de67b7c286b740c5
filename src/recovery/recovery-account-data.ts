/**
 * Recovery's records in an account move or deletion. A move re-keys the account's
 * configuration (guardians, threshold, backup codes: they keep working), closes its open
 * request (completed when it is the request that moved it, cancelled otherwise) and renames the
 * account wherever it is a guardian, in configurations and requests (its decisions included).
 * A deletion removes the configuration, cancels the open request, and takes the account off
 * the guardians of others (their threshold lowered to what is left) and off the open requests
 * it had not decided on yet.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { RecoveryConfigs } from './recovery-config.js';
import type { RecoveryRequests } from './recovery-request.js';

export class RecoveryAccountData implements AccountDataOwner {
  readonly name = 'recovery';

  constructor(
    private readonly configs: RecoveryConfigs,
    private readonly requests: RecoveryRequests,
  ) {}

  async moveAccount(from: string, to: string): Promise<void> {
    await this.requests.moveAccount(from, to, new Date());
    await this.configs.moveAccount(from, to);
  }

  async deleteAccount(address: string): Promise<void> {
    await this.requests.removeAccount(address, new Date());
    await this.configs.removeAccount(address);
  }
}
