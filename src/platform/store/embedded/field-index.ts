import { equalityValues, indexedValues, keyOf, topField } from './index-keys.js';
import type { IndexReads } from './index-keys.js';
import type { StoredDocument } from './stored-document.js';

/**
 * Equality index on one field (the leading field of a declared index): value key → ids.
 * It only narrows the candidates; the full filter is still applied to them, so it may
 * hold more than the exact matches but never fewer.
 */
export class FieldIndex implements IndexReads {
  private readonly buckets = new Map<string, Set<string>>();

  /** The top-level field the indexed path starts in: the index changes only when it does. */
  readonly reads: readonly string[];

  constructor(private readonly path: string) {
    this.reads = [topField(path)];
  }

  add(doc: StoredDocument): void {
    for (const key of this.keysOf(doc)) {
      let bucket = this.buckets.get(key);
      if (!bucket) this.buckets.set(key, (bucket = new Set()));
      bucket.add(doc._id);
    }
  }

  remove(doc: StoredDocument): void {
    for (const key of this.keysOf(doc)) {
      const bucket = this.buckets.get(key);
      bucket?.delete(doc._id);
      if (bucket?.size === 0) this.buckets.delete(key);
    }
  }

  /** Ids that may match `filter`, or undefined when the filter does not pin this field. */
  lookup(filter: Record<string, unknown>): Set<string> | undefined {
    const values = equalityValues(filter, this.path);
    if (!values) return undefined;
    const ids = new Set<string>();
    for (const value of values) {
      for (const id of this.buckets.get(keyOf(value)) ?? []) ids.add(id);
    }
    return ids;
  }

  /** Null and missing values are never looked up (see isLookupValue), so they are not kept. */
  private keysOf(doc: StoredDocument): Set<string> {
    const values = indexedValues(doc, this.path, true).filter(
      (value) => value !== null && value !== undefined,
    );
    return new Set(values.map(keyOf));
  }
}
