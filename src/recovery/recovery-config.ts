/**
 * An account's recovery configuration (`recovery_configs`, keyed by the account's address):
 * guardians, threshold, time lock, the optional recovery-email hash and the keyed hashes of the
 * current backup codes, with the count of wrong codes (5 in a row lock backup-code recovery of
 * the account for an hour). The repository owns every query of the collection.
 */
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';
import type { StoredRecoveryCode } from './recovery-codes.js';

export interface RecoveryConfig {
  /** The account's address. */
  _id: string;
  /** Random; binds the backup codes to this configuration (recovery-codes.ts). */
  configurationId: string;
  guardians: string[];
  minGuardiansRequired: number;
  timeLockHours: number;
  /** Lowercase hex SHA-256, or empty. */
  recoveryEmailHash: string;
  codes: StoredRecoveryCode[];
  /** Wrong backup codes in a row. */
  codeFailures: number;
  codesLockedUntil: Date | null;
  configuredAt: Date;
}

export const RECOVERY_CONFIGS = 'recovery_configs';
/** Wrong backup codes in a row that lock backup-code recovery of the account, and for how long. */
export const CODE_FAILURE_LIMIT = 5;
export const CODE_LOCK_MS = 60 * 60 * 1000;

export const recoveryConfigIndexes: IndexSpec[] = [
  // Whose guardian an account is: for moving and deleting it.
  { collection: RECOVERY_CONFIGS, name: 'by_guardian', key: { guardians: 1 } },
];

export class RecoveryConfigs {
  private readonly configs: Collection<RecoveryConfig>;

  constructor(store: DocumentStore) {
    this.configs = store.collection<RecoveryConfig>(RECOVERY_CONFIGS);
  }

  find(address: string): Promise<RecoveryConfig | null> {
    return this.configs.findOne({ _id: address });
  }

  /** Replaces the configuration (and with it every earlier backup code). */
  async save(config: RecoveryConfig): Promise<void> {
    const { _id, ...fields } = config;
    await this.configs.updateOne({ _id }, { $set: fields }, { upsert: true });
  }

  /** Spends an unused code of this configuration; false when it was spent meanwhile or replaced. */
  async spendCode(config: RecoveryConfig, hash: string): Promise<boolean> {
    const spent = await this.configs.updateOne(
      {
        _id: config._id,
        configurationId: config.configurationId,
        codes: { $elemMatch: { hash, usedAt: null } },
      },
      { $set: { 'codes.$.usedAt': new Date(), codeFailures: 0 } },
    );
    return spent.matchedCount === 1;
  }

  /** Counts a wrong code; the fifth in a row locks backup-code recovery for an hour. */
  async recordWrongCode(address: string, now: Date): Promise<void> {
    const counted = await this.configs.findOneAndUpdate(
      { _id: address },
      { $inc: { codeFailures: 1 } },
      { returnDocument: 'after' },
    );
    if (counted && counted.codeFailures >= CODE_FAILURE_LIMIT) {
      await this.configs.updateOne(
        { _id: address },
        { $set: { codeFailures: 0, codesLockedUntil: new Date(now.getTime() + CODE_LOCK_MS) } },
      );
    }
  }

  /** The configuration follows the account to its new address; guardianships of others name the new address. */
  async moveAccount(from: string, to: string): Promise<void> {
    await rekeyDocuments(this.configs, { _id: from }, (config) => ({ ...config, _id: to }));
    for (const config of await this.configs.find({ guardians: from })) {
      const guardians = config.guardians.map((guardian) => (guardian === from ? to : guardian));
      await this.configs.updateOne({ _id: config._id, guardians: from }, { $set: { guardians } });
    }
  }

  /**
   * The account's configuration goes; where it guarded others, it is taken off their guardians
   * and their threshold lowered to what is left (backup codes only when none is).
   */
  async removeAccount(address: string): Promise<void> {
    await this.configs.deleteOne({ _id: address });
    for (const config of await this.configs.find({ guardians: address })) {
      const guardians = config.guardians.filter((guardian) => guardian !== address);
      await this.configs.updateOne(
        { _id: config._id, guardians: address },
        {
          $set: {
            guardians,
            minGuardiansRequired: Math.min(config.minGuardiansRequired, guardians.length),
          },
        },
      );
    }
  }
}
