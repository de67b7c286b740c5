import {
  MongoError,
  MongoNetworkError,
  MongoServerError,
  MongoServerSelectionError,
} from 'mongodb';
import { DependencyUnavailableError } from '../../errors/dependency-unavailable.js';
import type { IndexSpec } from '../document-store.js';
import { DuplicateKeyError } from '../duplicate-key-error.js';
import { IndexConflictError } from '../index-conflict-error.js';
import { MongoErrorCode } from '../store-command-error.js';

const DUPLICATE_KEY = 11000;

/**
 * Runs a driver call and turns the server's failures into the port's errors: a duplicate key
 * into DuplicateKeyError, and an outage (no server selectable, a dropped connection, a
 * failover the driver's one retry did not outlast) into DependencyUnavailableError, which the
 * pipeline answers with 503 and Retry-After and the outage log reports once per interval.
 */
export async function mapMongoError<R>(operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) {
      throw new DuplicateKeyError(indexName(err), { cause: err });
    }
    if (isOutage(err)) {
      throw new DependencyUnavailableError('mongodb', 'MongoDB is unreachable', { cause: err });
    }
    throw err;
  }
}

/**
 * The driver labels what is worth retrying later (a primary stepping down, a shutdown in
 * progress) with RetryableWriteError or ResetPool; a network error or a failed server selection
 * is an outage whatever its label.
 */
function isOutage(err: unknown): boolean {
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError) return true;
  return (
    err instanceof MongoError &&
    (err.hasErrorLabel('RetryableWriteError') || err.hasErrorLabel('ResetPool'))
  );
}

/** The server names the index only inside its message: "... index: email_1 dup key: {...}". */
function indexName(err: MongoServerError): string {
  return /index: (\S+) dup key/.exec(err.message)?.[1] ?? 'unknown';
}

/** createIndexes refused because the index exists with another spec or name: a clear start-up error. */
export async function mapIndexConflict<R>(
  spec: IndexSpec,
  operation: () => Promise<R>,
): Promise<R> {
  try {
    return await mapMongoError(operation);
  } catch (err) {
    if (err instanceof MongoServerError && err.code === MongoErrorCode.IndexOptionsConflict) {
      throw new IndexConflictError('IndexOptionsConflict', spec.collection, spec.name, err.message);
    }
    if (err instanceof MongoServerError && err.code === MongoErrorCode.IndexKeySpecsConflict) {
      throw new IndexConflictError(
        'IndexKeySpecsConflict',
        spec.collection,
        spec.name,
        err.message,
      );
    }
    throw err;
  }
}
