import type { IndexSpec } from '../document-store.js';
import { compileFilter } from './filter-query.js';
import { partialFilterReads, topField } from './index-keys.js';
import type { IndexReads } from './index-keys.js';
import { impliesPartialFilter } from './partial-filter-implication.js';
import type { DocumentPredicate } from './plain-filter.js';
import type { StoredDocument } from './stored-document.js';

/**
 * The documents a non-unique partial index holds (those its filter matches), so that a query
 * implying the filter reads only them, as MongoDB's plan would: the sweep of unannounced messages
 * (`{unannounced: true, sentAt: {$lt: …}}` every 2 s) read every message, 45 ms per sweep at
 * 200,000 messages, where the index holds a handful.
 */
export class PartialIndex implements IndexReads {
  private readonly ids = new Set<string>();
  private readonly predicate: DocumentPredicate;
  private readonly filter: Record<string, unknown>;
  /** The top-level fields the filter reads; undefined when that cannot be told. */
  readonly reads: string[] | undefined;

  constructor(readonly spec: IndexSpec) {
    this.filter = spec.partialFilterExpression!;
    this.predicate = compileFilter(this.filter);
    this.reads = partialFilterReads(this.filter);
  }

  /** Records whether `doc` is in the index. */
  set(doc: StoredDocument): void {
    if (this.predicate.test(doc)) this.ids.add(doc._id);
    else this.ids.delete(doc._id);
  }

  remove(id: string): void {
    this.ids.delete(id);
  }

  /** The ids a query can match through this index, or undefined when it does not imply the filter. */
  lookup(query: Record<string, unknown>): Set<string> | undefined {
    // The query must constrain every field the filter reads: a quick no before the full check,
    // asked of every query of the collection, so it allocates nothing beyond the key list.
    if (this.reads) {
      const keys = Object.keys(query);
      if (
        !keys.some((key) => key.startsWith('$')) &&
        !this.reads.every((field) => keys.some((key) => topField(key) === field))
      )
        return undefined;
    }
    return impliesPartialFilter(query, this.filter) ? this.ids : undefined;
  }
}
