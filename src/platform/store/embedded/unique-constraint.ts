import type { IndexSpec } from '../document-store.js';
import type { DocumentPredicate } from './plain-filter.js';
import { compileFilter } from './filter-query.js';
import { impliesPartialFilter } from './partial-filter-implication.js';
import {
  equalityValues,
  indexedValues,
  keyOf,
  partialFilterReads,
  topField,
} from './index-keys.js';
import type { IndexReads } from './index-keys.js';
import type { StoredDocument } from './stored-document.js';

/**
 * One unique index: every key it holds maps to the single document that owns it. A missing
 * field is indexed as null (so two documents without it collide, as in MongoDB) unless the
 * partial filter leaves the document out of the index.
 */
export class UniqueConstraint implements IndexReads {
  private readonly owners = new Map<string, string>();
  private readonly fields: string[];
  private readonly partial: DocumentPredicate | undefined;
  /** The top-level fields the keys and the partial filter read; undefined when that cannot be told. */
  readonly reads: string[] | undefined;

  constructor(readonly spec: IndexSpec) {
    this.fields = Object.keys(spec.key);
    this.partial = spec.partialFilterExpression
      ? compileFilter(spec.partialFilterExpression)
      : undefined;
    const partialReads = spec.partialFilterExpression
      ? partialFilterReads(spec.partialFilterExpression)
      : [];
    this.reads = partialReads && [...this.fields.map(topField), ...partialReads];
  }

  keysOf(doc: StoredDocument): string[] {
    if (this.partial && !this.partial.test(doc)) return [];
    const perField = this.fields.map((field) =>
      distinct(indexedValues(doc, field, false).map(keyOf)),
    );
    return compoundKeys(perField);
  }

  /** True when one of `keys` already belongs to a document other than `id`. */
  conflicts(id: string, keys: string[]): boolean {
    return keys.some((key) => {
      const owner = this.owners.get(key);
      return owner !== undefined && owner !== id;
    });
  }

  add(id: string, keys: string[]): void {
    for (const key of keys) this.owners.set(key, id);
  }

  remove(keys: string[]): void {
    for (const key of keys) this.owners.delete(key);
  }

  /**
   * Ids of the documents a filter can match when it pins every field of this index by
   * equality; undefined when it does not, or when a partial index may not hold them all (the
   * filter does not imply the index's filter, the rule MongoDB's planner follows).
   */
  lookup(filter: Record<string, unknown>): string[] | undefined {
    // The cheap test first: most filters a table sees do not pin this index's fields, and
    // the implication check parses both filters.
    const perField: string[][] = [];
    for (const field of this.fields) {
      const values = equalityValues(filter, field);
      if (!values) return undefined;
      perField.push(distinct(values.map(keyOf)));
    }
    const { partialFilterExpression } = this.spec;
    if (partialFilterExpression && !impliesPartialFilter(filter, partialFilterExpression))
      return undefined;
    const ids = compoundKeys(perField).map((key) => this.owners.get(key));
    return distinct(ids.filter((id): id is string => id !== undefined));
  }
}

/** One key per combination of the fields' values (several when a field is an array). */
function compoundKeys(perField: string[][]): string[] {
  if (perField.length === 1) return perField[0] ?? [];
  let combos: string[][] = [[]];
  for (const keys of perField)
    combos = combos.flatMap((prefix) => keys.map((key) => [...prefix, key]));
  return combos.map((combo) => JSON.stringify(combo));
}

function distinct<T>(values: T[]): T[] {
  return [...new Set(values)];
}
