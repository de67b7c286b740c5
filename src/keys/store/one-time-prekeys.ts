/**
 * One-time prekeys (`one_time_prekeys`, one document per key). A fetch takes one with a single
 * atomic find-and-delete, as Signal-Server's single-use prekey store does: of any number of
 * concurrent fetches, on any number of api pods sharing the store, each key goes to at most
 * one of them. They stay in the store only (never in the DHT, which cannot take atomically).
 */
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';

export interface OneTimePreKey {
  readonly keyId: number;
  readonly publicKey: string;
}

interface StoredPreKey extends OneTimePreKey {
  /** `<owner>:<keyId>`, so a key id is stored once per owner. */
  _id: string;
  owner: string;
}

const ONE_TIME_PREKEYS = 'one_time_prekeys';
/** At most this many keys are stored per owner. */
export const MAX_STORED_PREKEYS = 200;

export const oneTimePreKeyIndexes: IndexSpec[] = [
  { collection: ONE_TIME_PREKEYS, name: 'owner_key', key: { owner: 1, keyId: 1 } },
];

const idOf = (owner: string, keyId: number) => `${owner}:${keyId}`;

export class OneTimePreKeys {
  private readonly keys: Collection<StoredPreKey>;

  constructor(store: DocumentStore) {
    this.keys = store.collection<StoredPreKey>(ONE_TIME_PREKEYS);
  }

  /** Hands out one of the owner's keys, removing it; undefined when none are left. */
  async removeAll(owner: string): Promise<void> {
    await this.keys.deleteMany({ owner });
  }

  async take(owner: string): Promise<OneTimePreKey | undefined> {
    const taken = await this.keys.findOneAndDelete({ owner }, { sort: { keyId: 1 } });
    return taken ? { keyId: taken.keyId, publicKey: taken.publicKey } : undefined;
  }

  /** Replaces all of the owner's keys (a new bundle). */
  async replace(owner: string, keys: readonly OneTimePreKey[]): Promise<void> {
    await this.keys.deleteMany({ owner });
    if (keys.length > 0)
      await this.keys.insertMany(
        keys.map((key) => ({
          _id: idOf(owner, key.keyId),
          owner,
          keyId: key.keyId,
          publicKey: key.publicKey,
        })),
      );
  }

  /**
   * Adds keys whose ids the owner does not hold yet. Refused (nothing added) when an id is
   * already stored or the total would pass MAX_STORED_PREKEYS; both are checked again after the
   * write, so two top-ups racing each other cannot pass the limit either.
   */
  async add(
    owner: string,
    keys: readonly OneTimePreKey[],
  ): Promise<{ added: true; count: number } | { added: false; problem: string }> {
    const ids = keys.map((key) => idOf(owner, key.keyId));
    const [count, existing] = await Promise.all([
      this.count(owner),
      this.keys.find({ _id: { $in: ids } }, { projection: { keyId: 1 } }),
    ]);
    if (existing.length > 0)
      return {
        added: false,
        problem: `keyId ${existing.map((key) => key.keyId).join(', ')} is already stored`,
      };
    if (count + keys.length > MAX_STORED_PREKEYS)
      return {
        added: false,
        problem: `at most ${MAX_STORED_PREKEYS} one-time prekeys are stored (${count} now)`,
      };
    try {
      await this.keys.insertMany(
        keys.map((key, i) => ({
          _id: ids[i] as string,
          owner,
          keyId: key.keyId,
          publicKey: key.publicKey,
        })),
      );
    } catch (error) {
      // A top-up racing this one stored one of the ids first. The keys inserted before it stay:
      // they are the owner's own valid keys, and handing one out is harmless.
      if (error instanceof DuplicateKeyError)
        return { added: false, problem: 'a keyId is already stored' };
      throw error;
    }
    const after = await this.count(owner);
    if (after > MAX_STORED_PREKEYS) {
      await this.keys.deleteMany({ _id: { $in: ids } });
      return { added: false, problem: `at most ${MAX_STORED_PREKEYS} one-time prekeys are stored` };
    }
    return { added: true, count: after };
  }

  list(owner: string): Promise<OneTimePreKey[]> {
    return this.keys.find(
      { owner },
      { sort: { keyId: 1 }, projection: { _id: 0, keyId: 1, publicKey: 1 } },
    );
  }

  count(owner: string): Promise<number> {
    return this.keys.countDocuments({ owner });
  }
}
