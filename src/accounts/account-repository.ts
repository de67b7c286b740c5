import { conflict } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { ACCOUNTS } from './account.js';
import type { Account } from './account.js';

export class AccountRepository {
  private readonly accounts: Collection<Account>;

  constructor(store: DocumentStore) {
    this.accounts = store.collection<Account>(ACCOUNTS);
  }

  /** A live account: a deleted one is nobody's business but the account life's (below). */
  find(address: string): Promise<Account | null> {
    return this.accounts.findOne({ _id: address, deletedAt: { $exists: false } });
  }

  /** Whether a live account has this address (nothing of the record is read: every send asks). */
  async exists(address: string): Promise<boolean> {
    return (
      (await this.accounts.findOne(
        { _id: address, deletedAt: { $exists: false } },
        { projection: { _id: 1 } },
      )) !== null
    );
  }

  findByUsername(username: string): Promise<Account | null> {
    return this.accounts.findOne({ username, deletedAt: { $exists: false } });
  }

  /** The record whatever its state, for moving it. */
  findRecord(address: string): Promise<Account | null> {
    return this.accounts.findOne({ _id: address });
  }

  /**
   * Hides the account from every lookup and clears its data while the deletion runs; its last
   * step removes the record. Idempotent: a repeated call keeps the first time.
   */
  async markDeleted(address: string, deletedAt: Date): Promise<void> {
    await this.accounts.updateOne(
      { _id: address, deletedAt: { $exists: false } },
      { $set: { deletedAt, displayName: '', permissions: [], mfaEnabled: false } },
    );
  }

  /**
   * Writes the moved account's record under its new address, once the old record is gone (a
   * username is unique). Idempotent: an existing record at `account._id` is kept.
   */
  async insertMoved(account: Account): Promise<void> {
    try {
      await this.accounts.insertOne(account);
    } catch (error) {
      if (!(error instanceof DuplicateKeyError) || error.index !== '_id_') throw error;
    }
  }

  /** Sets or (null) clears the end of the account's suspension; false when there is no live account. */
  async setSuspendedUntil(address: string, until: Date | null): Promise<boolean> {
    const result = await this.accounts.updateOne(
      { _id: address, deletedAt: { $exists: false } },
      until ? { $set: { suspendedUntil: until } } : { $unset: { suspendedUntil: '' as const } },
    );
    return result.matchedCount > 0;
  }

  /** Grants or revokes a permission; undefined when there is no such account, else whether it changed. */
  async setPermission(
    address: string,
    permission: string,
    granted: boolean,
  ): Promise<boolean | undefined> {
    const update = granted
      ? { $addToSet: { permissions: permission } }
      : { $pull: { permissions: permission } };
    const result = await this.accounts.updateOne({ _id: address }, update);
    return result.matchedCount === 0 ? undefined : result.modifiedCount > 0;
  }

  /** Records whether MFA is on (MfaService keeps it in step with the account's MFA record). */
  async setMfaEnabled(address: string, enabled: boolean): Promise<void> {
    await this.accounts.updateOne({ _id: address }, { $set: { mfaEnabled: enabled } });
  }

  /** Of `addresses`, those whose accounts exist and are not being deleted. */
  async liveAmong(addresses: readonly string[]): Promise<Set<string>> {
    if (addresses.length === 0) return new Set();
    const live = await this.accounts.find(
      { _id: { $in: [...addresses] }, deletedAt: { $exists: false } },
      { projection: { _id: 1 } },
    );
    return new Set(live.map((account) => account._id));
  }

  async setDisplayName(address: string, displayName: string): Promise<void> {
    await this.accounts.updateOne({ _id: address }, { $set: { displayName } });
  }

  /**
   * Renames the account if its username is still `from`: false when it changed meanwhile;
   * `409 CONFLICT` when another account holds `to` (the unique index decides between pods).
   */
  async rename(address: string, from: string, to: string): Promise<boolean> {
    try {
      const result = await this.accounts.updateOne(
        { _id: address, username: from },
        { $set: { username: to } },
      );
      return result.matchedCount === 1;
    } catch (error) {
      if (error instanceof DuplicateKeyError) throw conflict('This username is taken');
      throw error;
    }
  }

  async delete(address: string): Promise<void> {
    await this.accounts.deleteOne({ _id: address });
  }

  /** Creates the account; `409 CONFLICT` when the username (or, in a race, the wallet) is taken. */
  async create(account: Account): Promise<Account> {
    try {
      await this.accounts.insertOne(account);
      return account;
    } catch (error) {
      if (error instanceof DuplicateKeyError) {
        throw conflict(
          error.index === '_id_' ? 'This wallet already has an account' : 'This username is taken',
        );
      }
      throw error;
    }
  }
}
