/**
 * Which account a phone hash is bound to, with the identity key that signs its logins. Keyed
 * by the account (one number per account); the hash is unique across accounts.
 *
 * A phone registration is partial until its account publishes its first key bundle
 * (KeysService.PublishKeyBundle calls markRegistrationComplete); only a partial one can be
 * revoked by RevokeAbandonedPhoneRegistration.
 */
import { conflict } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import type { PhoneHashVersion } from './phone-hash.js';

export interface PhoneAccount {
  /** The account's wallet address. */
  _id: string;
  phoneHash: string;
  hashVersion: PhoneHashVersion;
  /** Raw Ed25519 public key, standard base64. */
  identityPublicKey: string;
  createdAt: Date;
  /** When the registration was completed (first key bundle); null while partial. */
  completedAt: Date | null;
}

const PHONE_ACCOUNTS = 'phone_accounts';

export const phoneAccountIndexes: IndexSpec[] = [
  { collection: PHONE_ACCOUNTS, name: 'phone_hash_unique', key: { phoneHash: 1 }, unique: true },
];

export class PhoneAccounts {
  private readonly accounts: Collection<PhoneAccount>;

  constructor(store: DocumentStore) {
    this.accounts = store.collection<PhoneAccount>(PHONE_ACCOUNTS);
  }

  findByHash(phoneHash: string): Promise<PhoneAccount | null> {
    return this.accounts.findOne({ phoneHash });
  }

  /**
   * The completed registrations bound to any of these V2 hashes (contact discovery). Partial
   * registrations are left out: until its first key bundle nobody can message the account.
   */
  completedAmong(phoneHashes: readonly string[]): Promise<PhoneAccount[]> {
    return this.accounts.find({
      phoneHash: { $in: [...phoneHashes] },
      hashVersion: 2,
      completedAt: { $ne: null },
    });
  }

  findByAddress(address: string): Promise<PhoneAccount | null> {
    return this.accounts.findOne({ _id: address });
  }

  /** `409 CONFLICT` when the number (or the account) is already bound. */
  async bind(binding: PhoneAccount): Promise<void> {
    try {
      await this.accounts.insertOne(binding);
    } catch (error) {
      if (error instanceof DuplicateKeyError)
        throw conflict('This phone number is already registered');
      throw error;
    }
  }

  /** Replaces the V1 hash; false when the stored hash changed meanwhile; 409 when the V2 hash is someone else's. */
  async migrate(address: string, legacyHash: string, newHash: string): Promise<boolean> {
    try {
      const result = await this.accounts.updateOne(
        { _id: address, phoneHash: legacyHash, hashVersion: 1 },
        { $set: { phoneHash: newHash, hashVersion: 2 } },
      );
      return result.matchedCount === 1;
    } catch (error) {
      if (error instanceof DuplicateKeyError)
        throw conflict('This phone hash is already bound to another account');
      throw error;
    }
  }

  async markRegistrationComplete(address: string): Promise<void> {
    await this.accounts.updateOne(
      { _id: address, completedAt: null },
      { $set: { completedAt: new Date() } },
    );
  }

  async remove(address: string): Promise<void> {
    await this.accounts.deleteOne({ _id: address });
  }

  /**
   * Re-binds the number to the account's new address (recovery). The hash is unique, so the
   * old binding first sets its hash aside (`moving:` prefix, which no client hash has); a move
   * that died at any step finishes when it runs again.
   */
  async move(from: string, to: string): Promise<void> {
    const binding = await this.accounts.findOne({ _id: from });
    if (!binding) return;
    const phoneHash = binding.phoneHash.replace(/^moving:/, '');
    await this.accounts.updateOne({ _id: from }, { $set: { phoneHash: `moving:${phoneHash}` } });
    const { _id, ...kept } = binding;
    await this.accounts.updateOne(
      { _id: to },
      { $setOnInsert: { ...kept, phoneHash } },
      { upsert: true },
    );
    await this.accounts.deleteOne({ _id: from });
  }
}
