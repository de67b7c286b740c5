import type { IndexSpec, QueryPlan, SortSpec } from '../document-store.js';
import { DuplicateKeyError } from '../duplicate-key-error.js';
import { IndexConflictError } from '../index-conflict-error.js';
import { FieldIndex } from './field-index.js';
import { leavesAlone } from './index-keys.js';
import { planQuery } from './query-planner.js';
import type { StoredDocument } from './stored-document.js';
import { PartialIndex } from './partial-index.js';
import { ExpiryIndex } from './ttl.js';
import { UniqueConstraint } from './unique-constraint.js';

const PRIMARY_KEY = '_id_';
const PRIMARY_INDEX: IndexSpec = {
  collection: '',
  name: PRIMARY_KEY,
  key: { _id: 1 },
  unique: true,
};

/**
 * One collection in memory: documents by `_id` plus its indexes. Every write checks all
 * unique constraints before touching anything, so a rejected write leaves no trace.
 */
export class Table {
  private readonly docs = new Map<string, StoredDocument>();
  private readonly specs = new Map<string, IndexSpec>();
  private readonly uniques: UniqueConstraint[] = [];
  private readonly fieldIndexes = new Map<string, FieldIndex>();
  /** Non-unique partial indexes: the documents each holds. */
  private readonly partials: PartialIndex[] = [];
  /** TTL indexes by name. */
  private readonly expiries = new Map<string, ExpiryIndex>();

  get(id: string): StoredDocument | undefined {
    return this.docs.get(id);
  }

  documents(): IterableIterator<StoredDocument> {
    return this.docs.values();
  }

  indexes(): IndexSpec[] {
    return [...this.specs.values()];
  }

  insert(doc: StoredDocument): void {
    if (this.docs.has(doc._id)) throw new DuplicateKeyError(PRIMARY_KEY);
    this.write(undefined, doc);
  }

  /** `next` takes the place of `previous` (same `_id`). */
  replace(previous: StoredDocument, next: StoredDocument): void {
    this.write(previous, next);
  }

  /**
   * Replays a journaled patch: the document with `set` over its fields and `unset` removed. The
   * patch was journaled after the document's put, so a missing document means the files do not
   * belong together.
   */
  patch(id: string, set: Record<string, unknown>, unset: readonly string[]): void {
    const previous = this.docs.get(id);
    if (!previous) throw new Error(`journal patches document ${id}, which does not exist`);
    const next: StoredDocument = { ...previous, ...set };
    for (const field of unset) delete next[field];
    this.write(previous, next);
  }

  /** Insert or replace, for replaying records that were checked when first written. */
  put(doc: StoredDocument): void {
    this.write(this.docs.get(doc._id), doc);
  }

  delete(id: string): StoredDocument | undefined {
    const doc = this.docs.get(id);
    if (!doc) return undefined;
    for (const unique of this.uniques) unique.remove(unique.keysOf(doc));
    for (const index of this.fieldIndexes.values()) index.remove(doc);
    for (const expiry of this.expiries.values()) expiry.remove(id);
    for (const partial of this.partials) partial.remove(id);
    this.docs.delete(id);
    return doc;
  }

  /** Ids of the documents the TTL index `name` has expired at `now`, taken out of it (see ExpiryIndex.take). */
  takeExpired(name: string, now: number): string[] {
    return this.expiries.get(name)?.take(now) ?? [];
  }

  /** When the earliest document of any of its TTL indexes expires (epoch ms), Infinity for none. */
  earliestExpiry(): number {
    let earliest = Infinity;
    for (const expiry of this.expiries.values())
      earliest = Math.min(earliest, expiry.earliest() ?? Infinity);
    return earliest;
  }

  /**
   * Adds an index over the existing documents. Returns false when an identical one exists;
   * throws, as MongoDB's index catalog does, when the name is taken by a different index (86
   * IndexKeySpecsConflict; 85 IndexOptionsConflict when only the TTL differs), when the same
   * keys already exist under another name (85), or when the data violates a new unique index.
   */
  addIndex(spec: IndexSpec): boolean {
    const conflict = this.conflictWith(spec);
    if (conflict === 'identical') return false;
    if (conflict) throw conflict;
    if (spec.unique) this.uniques.push(buildUnique(spec, this.docs.values()));
    const leading = Object.keys(spec.key)[0];
    if (
      leading !== undefined &&
      needsFieldIndex(spec, leading) &&
      !this.fieldIndexes.has(leading)
    ) {
      const index = new FieldIndex(leading);
      for (const doc of this.docs.values()) index.add(doc);
      this.fieldIndexes.set(leading, index);
    }
    if (spec.partialFilterExpression && !spec.unique) {
      const partial = new PartialIndex(spec);
      for (const doc of this.docs.values()) partial.set(doc);
      this.partials.push(partial);
    }
    if (spec.expireAfterSeconds !== undefined) {
      const expiry = new ExpiryIndex(spec);
      for (const doc of this.docs.values()) expiry.set(doc);
      this.expiries.set(spec.name, expiry);
    }
    this.specs.set(spec.name, spec);
    return true;
  }

  private conflictWith(spec: IndexSpec): IndexConflictError | 'identical' | undefined {
    const named = this.specs.get(spec.name);
    if (named) {
      if (identity(named) !== identity(spec)) {
        return new IndexConflictError(
          'IndexKeySpecsConflict',
          spec.collection,
          spec.name,
          `it exists as ${describe(named)}, declared as ${describe(spec)}`,
        );
      }
      if (named.expireAfterSeconds !== spec.expireAfterSeconds) {
        return new IndexConflictError(
          'IndexOptionsConflict',
          spec.collection,
          spec.name,
          `it exists as ${describe(named)}, declared as ${describe(spec)}`,
        );
      }
      return 'identical';
    }
    const sameKeys = [...this.specs.values()].find((other) => identity(other) === identity(spec));
    if (sameKeys) {
      return new IndexConflictError(
        'IndexOptionsConflict',
        spec.collection,
        spec.name,
        `Index already exists with a different name: ${sameKeys.name}`,
      );
    }
    return undefined;
  }

  /** The index MongoDB could answer `filter` with, given this table's indexes and `_id_`. */
  explain(filter: Record<string, unknown>, sort: SortSpec | undefined): QueryPlan {
    return planQuery([PRIMARY_INDEX, ...this.specs.values()], filter, sort);
  }

  /**
   * Documents that may match `filter`, found through `_id`, a unique index or a field index
   * when the filter pins one by equality, or a partial index whose filter the query implies
   * (smallest candidate set wins); otherwise all.
   */
  candidates(filter: Record<string, unknown>): Iterable<StoredDocument> {
    const ids = this.plan(filter);
    return ids ? this.resolve(ids) : this.docs.values();
  }

  private plan(filter: Record<string, unknown>): Iterable<string> | undefined {
    const byId = filter._id;
    if (typeof byId === 'string') return [byId];
    const inIds = (byId as { $in?: unknown } | undefined)?.$in;
    if (Array.isArray(inIds) && inIds.every((id) => typeof id === 'string')) return new Set(inIds);
    for (const unique of this.uniques) {
      const ids = unique.lookup(filter);
      if (ids) return ids;
    }
    let best: Set<string> | undefined;
    for (const partial of this.partials) {
      const ids = partial.lookup(filter);
      if (ids && (!best || ids.size < best.size)) best = ids;
    }
    for (const index of this.fieldIndexes.values()) {
      const ids = index.lookup(filter);
      if (ids && (!best || ids.size < best.size)) best = ids;
    }
    return best;
  }

  private *resolve(ids: Iterable<string>): Generator<StoredDocument> {
    for (const id of ids) {
      const doc = this.docs.get(id);
      if (doc) yield doc;
    }
  }

  /** Indexes whose fields a replacement leaves alone are not touched (most updates change one or two fields). */
  private write(previous: StoredDocument | undefined, next: StoredDocument): void {
    const changed = this.uniques.filter((unique) => !leavesAlone(unique, previous, next));
    const keys = changed.map((unique) => unique.keysOf(next));
    changed.forEach((unique, i) => {
      if (unique.conflicts(next._id, keys[i] ?? [])) throw new DuplicateKeyError(unique.spec.name);
    });
    changed.forEach((unique, i) => {
      if (previous) unique.remove(unique.keysOf(previous));
      unique.add(next._id, keys[i] ?? []);
    });
    for (const index of this.fieldIndexes.values()) {
      if (leavesAlone(index, previous, next)) continue;
      if (previous) index.remove(previous);
      index.add(next);
    }
    for (const expiry of this.expiries.values())
      if (!leavesAlone(expiry, previous, next)) expiry.set(next);
    for (const partial of this.partials)
      if (!leavesAlone(partial, previous, next)) partial.set(next);
    this.docs.set(next._id, next);
  }
}

function buildUnique(spec: IndexSpec, docs: Iterable<StoredDocument>): UniqueConstraint {
  const unique = new UniqueConstraint(spec);
  for (const doc of docs) {
    const keys = unique.keysOf(doc);
    if (unique.conflicts(doc._id, keys)) throw new DuplicateKeyError(spec.name);
    unique.add(doc._id, keys);
  }
  return unique;
}

/** `_id` and plain single-field unique indexes already answer equality lookups. */
function needsFieldIndex(spec: IndexSpec, leading: string): boolean {
  if (leading === '_id') return false;
  return !(spec.unique && !spec.partialFilterExpression && Object.keys(spec.key).length === 1);
}

/**
 * What makes two indexes the same index for MongoDB (IndexDescriptor::compareIndexOptions): the
 * key pattern (order included) and the options that change which entries it holds. The TTL is
 * not part of it: collMod changes a TTL in place.
 */
function identity(spec: IndexSpec): string {
  return JSON.stringify([
    Object.entries(spec.key),
    !!spec.unique,
    spec.partialFilterExpression ?? null,
  ]);
}

function describe(spec: IndexSpec): string {
  const { collection: _collection, name: _name, ...shape } = spec;
  return JSON.stringify(shape);
}
