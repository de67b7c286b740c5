/**
 * The durable copy of every published bundle (`key_bundles`, one document per owner, `_id` the
 * lowercase address). It is the record from which the DHT is re-published, the source of a
 * user's own keys and of sender certificates, and what tells a missing record (404) from an
 * unreachable directory (503). Contacts reads `identityKey` from it (contact-verifications.ts).
 */
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';
import { bundleVersion, encodeSignedBundle } from '../bundle/signed-bundle.js';
import type { SignedBundle } from '../bundle/signed-bundle.js';

export interface StoredKeyBundle extends Omit<SignedBundle, 'address'> {
  /** The owner's lowercase wallet address. */
  _id: string;
  /** bundleVersion: the stored bundle is only ever replaced by a newer one. */
  version: string;
  updatedAt: Date;
}

export const KEY_BUNDLES = 'key_bundles';
const REPUBLISH_BATCH = 500;

export class KeyBundleRepository {
  private readonly bundles: Collection<StoredKeyBundle>;

  constructor(store: DocumentStore) {
    this.bundles = store.collection<StoredKeyBundle>(KEY_BUNDLES);
  }

  /**
   * Stores the bundle unless a newer one is stored; false then. One conditional write: of two
   * racing publishes the newer wins whatever their order.
   */
  async save(bundle: SignedBundle, now: Date): Promise<boolean> {
    const { address, ...signed } = bundle;
    const version = bundleVersion(bundle);
    try {
      await this.bundles.updateOne(
        { _id: address, version: { $lte: version } },
        { $set: { ...signed, version, updatedAt: now } },
        { upsert: true },
      );
      return true;
    } catch (error) {
      // The owner has a bundle that the filter refused (a newer one), so the upsert collided with it.
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }

  async find(address: string): Promise<(SignedBundle & { updatedAt: Date }) | undefined> {
    const stored = await this.bundles.findOne({ _id: address });
    return stored ? toBundle(stored) : undefined;
  }

  /**
   * The stored bundle as a directory record (encodeSignedBundle): what the owner's last
   * acknowledged publish made current, or undefined when nothing is stored here.
   */
  async currentRecord(address: string): Promise<Uint8Array | undefined> {
    const stored = await this.bundles.findOne({ _id: address });
    return stored ? encodeSignedBundle(toBundle(stored)) : undefined;
  }

  async remove(address: string): Promise<void> {
    await this.bundles.deleteOne({ _id: address });
  }

  async exists(address: string): Promise<boolean> {
    return (await this.bundles.findOne({ _id: address }, { projection: { _id: 1 } })) !== null;
  }

  async touch(address: string, now: Date): Promise<void> {
    await this.bundles.updateOne({ _id: address }, { $set: { updatedAt: now } });
  }

  /** Every stored bundle, in batches by address (for re-publishing). */
  async *all(): AsyncGenerator<SignedBundle> {
    let after = '';
    for (;;) {
      const batch = await this.bundles.find(
        { _id: { $gt: after } },
        { sort: { _id: 1 }, limit: REPUBLISH_BATCH },
      );
      for (const stored of batch) yield toBundle(stored);
      if (batch.length < REPUBLISH_BATCH) return;
      after = (batch[batch.length - 1] as StoredKeyBundle)._id;
    }
  }
}

function toBundle({
  _id,
  ed25519PublicKey,
  identityKey,
  registrationId,
  signedPreKey,
  walletBinding,
  bundleSignature,
  updatedAt,
}: StoredKeyBundle) {
  return {
    address: _id,
    ed25519PublicKey,
    identityKey,
    registrationId,
    signedPreKey,
    walletBinding,
    bundleSignature,
    updatedAt,
  };
}
