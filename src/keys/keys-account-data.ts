/**
 * The keys area's records in an account move or deletion: both delete the published bundle and
 * the one-time prekeys of the address. A moved account's new device publishes a bundle of its
 * own (recovery.proto); a deleted account must not be reachable for new encrypted sessions
 * (profile.proto). The store copy goes at once, so the re-publisher stops writing the record;
 * a Kademlia DHT has no delete, so the copies its nodes already hold (signed bundles, without
 * one-time prekeys) can still be served until they age out (48 hours).
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { KeyBundleRepository } from './store/key-bundle-repository.js';
import type { OneTimePreKeys } from './store/one-time-prekeys.js';

export class KeysAccountData implements AccountDataOwner {
  readonly name = 'keys';

  constructor(
    private readonly bundles: KeyBundleRepository,
    private readonly prekeys: OneTimePreKeys,
  ) {}

  moveAccount(from: string): Promise<void> {
    return this.deleteAccount(from);
  }

  async deleteAccount(address: string): Promise<void> {
    await this.prekeys.removeAll(address);
    await this.bundles.remove(address);
  }
}
