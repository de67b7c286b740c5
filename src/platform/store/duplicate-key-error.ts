/**
 * A unique index rejected a write. Both implementations throw this (the MongoDB one maps
 * the server's code 11000 to it) so that business code can catch one class.
 */
export class DuplicateKeyError extends Error {
  readonly code = 11000;

  constructor(
    /** Name of the violated index (`_id_` for the primary key). */
    readonly index: string,
    options?: { cause?: unknown },
  ) {
    super(`E11000 duplicate key error, index: ${index}`, options);
    this.name = 'DuplicateKeyError';
  }
}
