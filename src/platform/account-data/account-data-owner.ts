/**
 * The part of an area that holds records keyed by a wallet address. Social recovery moves an
 * account to a new address and account deletion removes one; both walk every owner in a fixed
 * order and record their progress, so after a crash the walk resumes and repeats the owner it
 * was in. Every method must therefore be idempotent and must finish correctly after an earlier
 * run of itself stopped half-way (re-key with filters on the old address, never toggle state).
 */
export interface AccountDataOwner {
  /** A stable name: the progress record of a move or deletion refers to owners by it. */
  readonly name: string;
  /**
   * Re-key every record of `from` to `to`: the account is the same, only its address changes
   * (sessions of `from` are ended by identity, not here). Where `to` already holds a record
   * the owner merges or keeps one, and says which in its comment.
   */
  moveAccount(from: string, to: string): Promise<void>;
  /** Delete or revoke every record of `address` that account deletion lists (profile.proto). */
  deleteAccount(address: string): Promise<void>;
}
