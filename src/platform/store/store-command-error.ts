/**
 * A command MongoDB refuses, with MongoDB's own error code and name. The MongoDB driver throws
 * MongoServerError with the same `code` and `codeName`; the embedded engine throws this class
 * where MongoDB would refuse, so callers (and the contract suite) see one behaviour.
 */
export class StoreCommandError extends Error {
  constructor(
    readonly code: number,
    readonly codeName: string,
    message: string,
  ) {
    super(message);
    this.name = 'StoreCommandError';
  }
}

/** The MongoDB error codes the embedded engine reproduces (src/mongo/base/error_codes.yml). */
export const MongoErrorCode = {
  BadValue: 2,
  TypeMismatch: 14,
  ConflictingUpdateOperators: 40,
  ImmutableField: 66,
  CannotCreateIndex: 67,
  IndexOptionsConflict: 85,
  IndexKeySpecsConflict: 86,
  InvalidIndexSpecificationOption: 197,
} as const;

type CodeName = keyof typeof MongoErrorCode;

export function refused(codeName: CodeName, message: string): StoreCommandError {
  return new StoreCommandError(MongoErrorCode[codeName], codeName, message);
}
