import { MongoServerError } from 'mongodb';
import type { IndexSpec } from '../document-store.js';
import { DuplicateKeyError } from '../duplicate-key-error.js';
import { IndexConflictError } from '../index-conflict-error.js';
import { MongoErrorCode } from '../store-command-error.js';

const DUPLICATE_KEY = 11000;

/** Runs a driver call and turns the server's duplicate-key failure into the port's error. */
export async function mapMongoError<R>(operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (err) {
    if (err instanceof MongoServerError && err.code === DUPLICATE_KEY) {
      throw new DuplicateKeyError(indexName(err), { cause: err });
    }
    throw err;
  }
}

/** The server names the index only inside its message: "... index: email_1 dup key: {...}". */
function indexName(err: MongoServerError): string {
  return /index: (\S+) dup key/.exec(err.message)?.[1] ?? 'unknown';
}

/** createIndexes refused because the index exists with another spec or name: a clear start-up error. */
export async function mapIndexConflict<R>(spec: IndexSpec, operation: () => Promise<R>): Promise<R> {
  try {
    return await mapMongoError(operation);
  } catch (err) {
    if (err instanceof MongoServerError && err.code === MongoErrorCode.IndexOptionsConflict) {
      throw new IndexConflictError('IndexOptionsConflict', spec.collection, spec.name, err.message);
    }
    if (err instanceof MongoServerError && err.code === MongoErrorCode.IndexKeySpecsConflict) {
      throw new IndexConflictError('IndexKeySpecsConflict', spec.collection, spec.name, err.message);
    }
    throw err;
  }
}
