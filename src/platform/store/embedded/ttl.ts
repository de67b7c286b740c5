import TinyQueue from 'tinyqueue';
import type { IndexSpec } from '../document-store.js';
import { indexedValues, topField } from './index-keys.js';
import type { IndexReads } from './index-keys.js';
import type { StoredDocument } from './stored-document.js';

interface Expiry {
  readonly at: number;
  readonly id: string;
}

/**
 * A TTL index: when each document expires, in a priority queue, so that the store's sweep
 * (when the earliest expiry comes, at most once a second) takes the expired documents without
 * reading the others. It used to read every
 * document of every TTL collection each second: 4 % of a core per 200,000 messages, growing with
 * the history.
 *
 * A document expires `expireAfterSeconds` after the date in the indexed field (the earliest, for
 * an array of dates); one without a date there never expires, as in MongoDB. An update that moves
 * the date leaves the old entry in the queue, where it is recognised as stale (it no longer
 * matches the document's expiry) and dropped when it comes up; the queue is rebuilt when stale
 * entries outnumber the live ones.
 */
export class ExpiryIndex implements IndexReads {
  /** The top-level field the expiry is read from: a replacement that shares it keeps its expiry. */
  readonly reads: readonly string[];
  private readonly field: string;
  private readonly afterMs: number;
  private readonly expiries = new Map<string, number>();
  private queue = new TinyQueue<Expiry>([], byTime);

  constructor(readonly spec: IndexSpec) {
    this.field = Object.keys(spec.key)[0]!;
    this.reads = [topField(this.field)];
    this.afterMs = (spec.expireAfterSeconds ?? 0) * 1000;
  }

  /** Records when `doc` (new or replaced) expires, if ever. */
  set(doc: StoredDocument): void {
    const at = this.expiryOf(doc);
    if (at === undefined) {
      this.expiries.delete(doc._id);
      return;
    }
    if (this.expiries.get(doc._id) === at) return;
    this.expiries.set(doc._id, at);
    this.queue.push({ at, id: doc._id });
    if (this.queue.length > 2 * this.expiries.size + 1024) this.rebuild();
  }

  remove(id: string): void {
    this.expiries.delete(id);
  }

  /** When the earliest document expires (epoch ms; an entry gone stale makes it early, never late). */
  earliest(): number | undefined {
    return this.queue.peek()?.at;
  }

  /**
   * Ids of the documents expired at `now`, earliest first, taken out of the index: the caller
   * deletes them (a failed deletion fails the journal, after which nothing is written anyway).
   */
  take(now: number): string[] {
    const ids: string[] = [];
    for (
      let next = this.queue.peek();
      next !== undefined && next.at <= now;
      next = this.queue.peek()
    ) {
      this.queue.pop();
      if (this.expiries.get(next.id) !== next.at) continue;
      this.expiries.delete(next.id);
      ids.push(next.id);
    }
    return ids;
  }

  private expiryOf(doc: StoredDocument): number | undefined {
    let earliest: number | undefined;
    for (const value of indexedValues(doc, this.field, false)) {
      if (value instanceof Date && (earliest === undefined || value.getTime() < earliest))
        earliest = value.getTime();
    }
    return earliest === undefined ? undefined : earliest + this.afterMs;
  }

  private rebuild(): void {
    this.queue = new TinyQueue(
      [...this.expiries].map(([id, at]) => ({ at, id })),
      byTime,
    );
  }
}

function byTime(a: Expiry, b: Expiry): number {
  return a.at - b.at;
}
