/**
 * The store's copy of each user's enumeration budget (enumeration-quota.ts): the floor that
 * holds when shared state comes back empty. Redis alone would give every user a full budget
 * after a flush or a restart without persistence, reopening the enumeration the quota exists
 * to stop; the store is the durable record of security state.
 *
 * One record per user that has spent anything: `fullAt`, the moment its budget is whole again
 * (a "theoretical arrival time": each hash moves it `window / budget` later, and it never lies
 * more than a window ahead). A record whose `fullAt` has passed means a full budget, so a TTL
 * index on it removes idle users. Updates are compare-and-set on `fullAt`: two pods charging
 * one user at once retry instead of losing a charge.
 */
import { unavailable } from '../../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';
import { DuplicateKeyError } from '../../platform/store/document-store.js';

interface SpentBudget {
  /** The user's address. */
  _id: string;
  fullAt: Date;
}

const DISCOVERY_BUDGETS = 'discovery_budgets';
/** Concurrent charges of one user are at most its per-minute burst; a few retries settle them. */
const MAX_ATTEMPTS = 8;

export const durableBudgetIndexes: IndexSpec[] = [
  { collection: DISCOVERY_BUDGETS, name: 'full_again', key: { fullAt: 1 }, expireAfterSeconds: 0 },
];

export interface BudgetDecision {
  readonly allowed: boolean;
  /** 0 when allowed; else how long until `cost` hashes fit. */
  readonly retryAfterMs: number;
}

export class DurableBudget {
  private readonly budgets: Collection<SpentBudget>;

  constructor(
    store: DocumentStore,
    private readonly budget: number,
    private readonly windowMs: number,
  ) {
    this.budgets = store.collection<SpentBudget>(DISCOVERY_BUDGETS);
  }

  /** Takes `cost` hashes from `user`'s budget, or nothing when they do not fit. */
  async take(user: string, cost: number, nowMs: number): Promise<BudgetDecision> {
    // Whole milliseconds per hash, rounded up: the strict side.
    const spend = Math.ceil((cost * this.windowMs) / this.budget);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const record = await this.budgets.findOne({ _id: user });
      const from = Math.max(record?.fullAt.getTime() ?? nowMs, nowMs);
      const fullAt = from + spend;
      if (fullAt - nowMs > this.windowMs)
        return { allowed: false, retryAfterMs: fullAt - nowMs - this.windowMs };
      if (await this.replace(user, record, new Date(fullAt)))
        return { allowed: true, retryAfterMs: 0 };
    }
    throw unavailable('Contact discovery is busy: retry later');
  }

  /** Compare-and-set: false when another charge changed the record since it was read. */
  private async replace(user: string, read: SpentBudget | null, fullAt: Date): Promise<boolean> {
    if (read)
      return (
        (await this.budgets.updateOne({ _id: user, fullAt: read.fullAt }, { $set: { fullAt } }))
          .matchedCount === 1
      );
    try {
      await this.budgets.insertOne({ _id: user, fullAt });
      return true;
    } catch (error) {
      if (error instanceof DuplicateKeyError) return false;
      throw error;
    }
  }
}
