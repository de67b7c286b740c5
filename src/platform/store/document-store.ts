/**
 * The storage port. Business code depends only on these types; `openStore` picks the
 * implementation (MongoDB driver or the embedded engine). The shapes mirror the MongoDB
 * driver on purpose so that the semantics tested on one hold on the other.
 */
import type { Filter, UpdateFilter } from 'mongodb';

export { DuplicateKeyError } from './duplicate-key-error.js';
export { IndexConflictError } from './index-conflict-error.js';
export { StoreCommandError } from './store-command-error.js';

/** Every stored document has a string `_id`, chosen by the caller or generated (24 hex). */
export interface Document {
  _id: string;
}

/** MongoDB query operators ($eq, $in, $gt, $exists, $and, $or, dotted paths, ...). */
export type StoreFilter<T> = Filter<T>;
/** MongoDB update operators ($set, $inc, $push, $pull, $addToSet, $unset, $setOnInsert, ...). */
export type StoreUpdate<T> = UpdateFilter<T>;

/** A document to insert: `_id` may be omitted and is then generated. */
export type NewDocument<T extends Document> = Omit<T, '_id'> & { _id?: string };

export type SortSpec = Record<string, 1 | -1>;
/** Inclusion (`1`/`true`) or exclusion (`0`/`false`), never both except for `_id`. */
export type Projection = Record<string, 0 | 1 | boolean>;

export interface FindOneOptions {
  sort?: SortSpec;
  projection?: Projection;
}

export interface FindOptions extends FindOneOptions {
  /** 0 or absent: no limit. */
  limit?: number;
  skip?: number;
}

export interface UpdateOptions {
  upsert?: boolean;
}

export interface UpdateResult {
  matchedCount: number;
  modifiedCount: number;
  /** Set only when an upsert inserted a document. */
  upsertedId?: string;
}

export interface FindOneAndUpdateOptions extends UpdateOptions {
  /** Which version to return; MongoDB's default is 'before'. */
  returnDocument?: 'before' | 'after';
  sort?: SortSpec;
  projection?: Projection;
}

export interface FindOneAndDeleteOptions {
  sort?: SortSpec;
  projection?: Projection;
}

export interface DeleteResult {
  deletedCount: number;
}

export interface Collection<T extends Document> {
  findOne(filter: StoreFilter<T>, options?: FindOneOptions): Promise<T | null>;
  find(filter: StoreFilter<T>, options?: FindOptions): Promise<T[]>;
  countDocuments(filter: StoreFilter<T>): Promise<number>;
  /** Resolves with the `_id` once the write is durable. */
  insertOne(doc: NewDocument<T>): Promise<string>;
  /** Ordered: stops at the first error; the documents before it stay inserted. */
  insertMany(docs: NewDocument<T>[]): Promise<string[]>;
  updateOne(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options?: UpdateOptions,
  ): Promise<UpdateResult>;
  updateMany(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options?: UpdateOptions,
  ): Promise<UpdateResult>;
  findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options?: FindOneAndUpdateOptions,
  ): Promise<T | null>;
  findOneAndDelete(filter: StoreFilter<T>, options?: FindOneAndDeleteOptions): Promise<T | null>;
  deleteOne(filter: StoreFilter<T>): Promise<DeleteResult>;
  deleteMany(filter: StoreFilter<T>): Promise<DeleteResult>;
}

/** An index declared in code and created at start-up. */
export interface IndexSpec {
  collection: string;
  name: string;
  key: Record<string, 1 | -1>;
  unique?: boolean;
  /** TTL: documents expire this long after the date in the (single) key field. */
  expireAfterSeconds?: number;
  /** Only documents matching this filter are indexed (and constrained, when unique). */
  partialFilterExpression?: Record<string, unknown>;
}

/** How a store would answer a query: through an index, or by reading the whole collection. */
export interface QueryPlan {
  stage: 'IXSCAN' | 'COLLSCAN';
  /** The indexes used (several for a `$or` answered clause by clause). */
  indexes: string[];
}

export interface DocumentStore {
  collection<T extends Document>(name: string): Collection<T>;
  /**
   * Idempotent: an index that already exists with the same spec is left alone. A declaration
   * MongoDB refuses throws StoreCommandError (e.g. 67 for TTL on a compound key); one that
   * conflicts with an existing index (same name, other spec; same keys, other name) throws
   * IndexConflictError.
   */
  ensureIndexes(indexes: IndexSpec[]): Promise<void>;
  /** Which index answers `filter` (MongoDB: explain's winning plan). For tests and diagnostics. */
  explain(
    collection: string,
    filter: Record<string, unknown>,
    options?: { sort?: SortSpec },
  ): Promise<QueryPlan>;
  /** Throws when the store cannot serve requests. */
  ping(): Promise<void>;
  /** Flushes everything pending; the store is unusable afterwards. */
  close(): Promise<void>;
}
