/**
 * The spec's replay rule: an accepted sign-in signature is spent for 10 minutes. The record is
 * in the store (unique id, TTL index), not in shared state, so it survives a restart and a Redis
 * that lost its data; the insert is the check and the spend in one atomic step, so of two
 * concurrent uses of one signature exactly one wins, on any pod. No cache sits in front: an
 * accepted sign-in writes to the store anyway, and a second source of truth could only disagree.
 */
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';

/** An accepted signature is spent this long (spec: replay cache 10 minutes). */
const REPLAY_WINDOW_MS = 10 * 60_000;

interface SpentSignature {
  /** The canonical signature (verify-sign-in.ts): every spelling of one signature is one key. */
  _id: string;
  expiresAt: Date;
}

const SPENT_SIGNATURES = 'spent_signatures';

export const spentSignatureIndexes: IndexSpec[] = [
  { collection: SPENT_SIGNATURES, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];

export class SpentSignatures {
  private readonly spent: Collection<SpentSignature>;

  constructor(store: DocumentStore) {
    this.spent = store.collection<SpentSignature>(SPENT_SIGNATURES);
  }

  /** Spends a signature: true when it was fresh, false when it is spent already (a replay). */
  async spend(signature: string): Promise<boolean> {
    const now = Date.now();
    const expiresAt = new Date(now + REPLAY_WINDOW_MS);
    try {
      await this.spent.insertOne({ _id: signature, expiresAt });
      return true;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      // A record past its window that the TTL sweep has not removed yet no longer counts.
      const reclaimed = await this.spent.updateOne(
        { _id: signature, expiresAt: { $lte: new Date(now) } },
        { $set: { expiresAt } },
      );
      return reclaimed.matchedCount === 1;
    }
  }

  /** Gives back a signature whose sign-in was refused after all: the client may send it again. */
  async release(signature: string): Promise<void> {
    await this.spent.deleteOne({ _id: signature });
  }
}
