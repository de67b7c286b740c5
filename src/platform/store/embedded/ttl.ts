import type { IndexSpec } from '../document-store.js';
import { indexedValues } from './index-keys.js';
import type { Table } from './table.js';

/**
 * Ids of documents a TTL index has expired at `now`: the indexed field holds a date (or
 * an array of dates, the earliest counting) at least `expireAfterSeconds` old. Documents
 * without a date there never expire, as in MongoDB.
 */
export function expiredIds(table: Table, spec: IndexSpec, now: number): string[] {
  const field = Object.keys(spec.key)[0];
  if (field === undefined || spec.expireAfterSeconds === undefined) return [];
  const cutoff = now - spec.expireAfterSeconds * 1000;
  const expired: string[] = [];
  for (const doc of table.documents()) {
    const times = indexedValues(doc, field, false)
      .filter((value): value is Date => value instanceof Date)
      .map((date) => date.getTime());
    if (times.length > 0 && Math.min(...times) <= cutoff) expired.push(doc._id);
  }
  return expired;
}
