/**
 * The durable record of an account move (social recovery) or deletion: written before anything
 * changes, advanced after each owner of `accountData` (src/app/api-areas.ts) finished its part,
 * and finished at the end. A process that dies mid-way leaves it unfinished; the next start
 * (walk-resumer.ts) runs it again from the owner it was in, whose steps are idempotent.
 */
import { conflict } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';

export type WalkKind = 'move' | 'delete';

export interface AccountWalk {
  /** The account's address when the walk began (the old address of a move). */
  _id: string;
  kind: WalkKind;
  /** The new address of a move; null for a deletion. */
  to: string | null;
  /** How many owners, in `accountData` order, finished their part. */
  ownersDone: number;
  startedAt: Date;
  /** Null while the walk is unfinished. */
  finishedAt: Date | null;
}

export const ACCOUNT_WALKS = 'account_walks';

export const accountWalkIndexes: IndexSpec[] = [
  { collection: ACCOUNT_WALKS, name: 'unfinished', key: { finishedAt: 1, startedAt: 1 } },
];

export class AccountWalks {
  private readonly walks: Collection<AccountWalk>;

  constructor(store: DocumentStore) {
    this.walks = store.collection<AccountWalk>(ACCOUNT_WALKS);
  }

  find(address: string): Promise<AccountWalk | null> {
    return this.walks.findOne({ _id: address });
  }

  /**
   * Records a new walk, or returns the account's existing one when it is the same walk (a
   * retried request); `409 CONFLICT` when the account is already being moved elsewhere or deleted.
   */
  async begin(kind: WalkKind, address: string, to: string | null): Promise<AccountWalk> {
    const walk: AccountWalk = {
      _id: address,
      kind,
      to,
      ownersDone: 0,
      startedAt: new Date(),
      finishedAt: null,
    };
    try {
      await this.walks.insertOne(walk);
      return walk;
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
    }
    const existing = await this.find(address);
    if (existing && existing.kind === kind && existing.to === to) return existing;
    throw conflict(
      existing?.kind === 'delete'
        ? 'This account was deleted'
        : 'This account already moved to another wallet',
    );
  }

  async advance(address: string, ownersDone: number): Promise<void> {
    await this.walks.updateOne(
      { _id: address, ownersDone: { $lt: ownersDone } },
      { $set: { ownersDone } },
    );
  }

  async finish(address: string): Promise<AccountWalk> {
    await this.walks.updateOne(
      { _id: address, finishedAt: null },
      { $set: { finishedAt: new Date() } },
    );
    return (await this.find(address))!;
  }

  unfinished(): Promise<AccountWalk[]> {
    return this.walks.find({ finishedAt: null }, { sort: { startedAt: 1 } });
  }
}
