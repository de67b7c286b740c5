/**
 * Wallets that can no longer sign in: the old wallet of an account that moved (social recovery,
 * for good) and the wallet of a deleted account (for the 30 days its username is held; then it
 * may register a new account). Written before anything else of a move or deletion, so from that
 * moment no sign-in and no registration with the wallet succeeds, across restarts and whatever
 * shared state lost: the store is the only place this is kept.
 */
import { permissionDenied } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { Account } from './account.js';

export interface RetiredWallet {
  /** The wallet's lowercase address. */
  _id: string;
  reason: 'moved' | 'deleted';
  /** The account's address after a move; null after a deletion. */
  movedTo: string | null;
  retiredAt: Date;
  /**
   * The account record as it was when the move began: the move writes it under the new address
   * after removing the old one (a username is unique), and a move that died in between
   * finishes from this copy.
   */
  account: Account | null;
  /** Deleted accounts only: when the wallet may register again (TTL). */
  expiresAt?: Date;
}

export const RETIRED_WALLETS = 'retired_wallets';

export const retiredWalletIndexes: IndexSpec[] = [
  { collection: RETIRED_WALLETS, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];

export class RetiredWallets {
  private readonly wallets: Collection<RetiredWallet>;

  constructor(store: DocumentStore) {
    this.wallets = store.collection<RetiredWallet>(RETIRED_WALLETS);
  }

  find(address: string): Promise<RetiredWallet | null> {
    return this.wallets.findOne({ _id: address });
  }

  /** True when the wallet's account was deleted or moved to another wallet. */
  async isRetired(address: string): Promise<boolean> {
    return (await this.find(address)) !== null;
  }

  /** Retires the wallet; a repeated call (a resumed move or deletion) keeps the first record. */
  async retire(wallet: Omit<RetiredWallet, 'retiredAt'>): Promise<RetiredWallet> {
    const { _id, ...fields } = wallet;
    await this.wallets.updateOne(
      { _id },
      { $setOnInsert: { ...fields, retiredAt: new Date() } },
      { upsert: true },
    );
    return (await this.find(_id))!;
  }

  /** 403 when the wallet may not sign in or register. */
  async refuseRetired(address: string): Promise<void> {
    const retired = await this.find(address);
    if (!retired) return;
    throw permissionDenied(
      retired.reason === 'moved'
        ? 'This wallet no longer signs in: its account moved to another wallet by recovery'
        : "This wallet's account was deleted",
      'ACCOUNT_CLOSED',
    );
  }
}
