/**
 * Safety-number verification: a user's record that they compared a contact's identity key out
 * of band. It is bound to the key compared, so when the contact publishes a new identity key the
 * contact reads as unverified again. Published key bundles live in the keys area's `key_bundles`,
 * of which only the identity key matters here.
 */
import { KEY_BUNDLES } from '../keys/store/key-bundle-repository.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';

export interface ContactVerification {
  /** `<verifier>|<contact>` */
  _id: string;
  identityKey: string;
  verifiedAt: Date;
}

export interface PublishedIdentityKey {
  /** The owner's lowercase wallet address. */
  _id: string;
  /** Base64 X25519 public key, as in the key bundle's `identityKey`. */
  identityKey: string;
}

export const CONTACT_VERIFICATIONS = 'contact_verifications';

const verificationId = (verifier: string, contact: string) => `${verifier}|${contact}`;

export class ContactVerifications {
  private readonly verifications: Collection<ContactVerification>;
  private readonly keyBundles: Collection<PublishedIdentityKey>;

  constructor(store: DocumentStore) {
    this.verifications = store.collection<ContactVerification>(CONTACT_VERIFICATIONS);
    this.keyBundles = store.collection<PublishedIdentityKey>(KEY_BUNDLES);
  }

  async publishedIdentityKey(address: string): Promise<string | undefined> {
    return (await this.keyBundles.findOne({ _id: address }, { projection: { identityKey: 1 } }))
      ?.identityKey;
  }

  async verify(
    verifier: string,
    contact: string,
    identityKey: string,
  ): Promise<ContactVerification> {
    const record = { _id: verificationId(verifier, contact), identityKey, verifiedAt: new Date() };
    await this.verifications.updateOne(
      { _id: record._id },
      { $set: { identityKey, verifiedAt: record.verifiedAt } },
      { upsert: true },
    );
    return record;
  }

  async clear(verifier: string, contact: string): Promise<void> {
    await this.verifications.deleteOne({ _id: verificationId(verifier, contact) });
  }

  /** Verified, and the contact's published identity key is still the one compared. */
  async isVerified(verifier: string, contact: string): Promise<boolean> {
    const [record, current] = await Promise.all([
      this.verifications.findOne({ _id: verificationId(verifier, contact) }),
      this.publishedIdentityKey(contact),
    ]);
    return record !== null && current !== undefined && record.identityKey === current;
  }

  /**
   * Re-keys the verifications made by and of the account to its new address. Those of it stay
   * bound to the identity key compared, so they read unverified once the new device publishes
   * its own key (recovery.proto: it must).
   */
  async moveAll(from: string, to: string): Promise<void> {
    await rekeyDocuments(this.verifications, verificationsOf(from), (record) => {
      const [verifier, contact] = record._id.split('|') as [string, string];
      return {
        ...record,
        _id: verificationId(verifier === from ? to : verifier, contact === from ? to : contact),
      };
    });
  }

  async removeAll(address: string): Promise<void> {
    await this.verifications.deleteMany(verificationsOf(address));
  }
}

/**
 * Every verification made by or of the account. The ids are `<verifier>|<contact>` of hex
 * addresses (nothing to escape); the second half scans the collection, which only a move or a
 * deletion does.
 */
const verificationsOf = (address: string) => ({
  $or: [{ _id: { $regex: `^${address}\\|` } }, { _id: { $regex: `\\|${address}$` } }],
});
