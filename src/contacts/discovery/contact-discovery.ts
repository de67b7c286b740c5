/**
 * Contact discovery (ContactsService.DiscoverContacts): which of the submitted phone hashes
 * belong to registered accounts. Nothing submitted is stored (the quota keeps only digests of
 * the hashes, for its window: enumeration-quota.ts); accounts being deleted and accounts that
 * have blocked the caller are left out, exactly as if they had no account.
 */
import type { AccountRepository } from '../../accounts/account-repository.js';
import type { PhoneAccounts } from '../../phone/phone-accounts.js';
import type { BlockList } from '../block-list.js';
import type { EnumerationQuota } from './enumeration-quota.js';

export interface ContactMatch {
  readonly phoneHash: string;
  readonly address: string;
}

export class ContactDiscovery {
  constructor(
    private readonly phoneAccounts: PhoneAccounts,
    private readonly accounts: AccountRepository,
    private readonly blocks: BlockList,
    private readonly quota: EnumerationQuota,
  ) {}

  async find(caller: string, phoneHashes: readonly string[]): Promise<ContactMatch[]> {
    const unique = [...new Set(phoneHashes)];
    await this.quota.charge(caller, unique);
    const bound = await this.phoneAccounts.completedAmong(unique);
    const addresses = bound.map((binding) => binding._id);
    const [live, blockers] = await Promise.all([
      this.accounts.liveAmong(addresses),
      this.blocks.blockersAmong(caller, addresses),
    ]);
    return bound
      .filter((binding) => live.has(binding._id) && !blockers.has(binding._id))
      .map((binding) => ({ phoneHash: binding.phoneHash, address: binding._id }));
  }
}
