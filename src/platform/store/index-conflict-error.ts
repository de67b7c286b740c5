import { MongoErrorCode, StoreCommandError } from './store-command-error.js';

export type IndexConflict = 'IndexOptionsConflict' | 'IndexKeySpecsConflict';

/**
 * A declared index disagrees with one the database already has (MongoDB codes 85
 * IndexOptionsConflict and 86 IndexKeySpecsConflict): same name with other keys or options, or
 * the same keys under another name. createIndexes cannot change an existing index, so the start
 * stops with this message instead of the server's.
 */
export class IndexConflictError extends StoreCommandError {
  constructor(
    codeName: IndexConflict,
    readonly collection: string,
    readonly index: string,
    detail: string,
  ) {
    super(
      MongoErrorCode[codeName],
      codeName,
      `index ${index} on ${collection} conflicts with an existing index (${codeName}): ${detail}. ` +
        'An existing index is never changed in place: declare the changed index under a new name, ' +
        'and drop the old one once no running version uses it (docs/deploy.md, "Indexes").',
    );
    this.name = 'IndexConflictError';
  }
}
