/**
 * Usernames held for their former owner: after a change or an account deletion the old name
 * stays unavailable to everybody else for `USERNAME_HOLD_MS` (30 days), so that nobody can take
 * over a name that the owner's contacts still know. The former owner may take it back. A TTL
 * index removes a hold once it has run out; reads also compare `heldUntil`, since TTL sweeps
 * lag (up to a minute on MongoDB).
 */
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';

export const USERNAME_HOLD_MS = 30 * 24 * 3_600_000;

export interface HeldUsername {
  /** The held username (lowercase). */
  _id: string;
  /** The account that gave it up. */
  formerOwner: string;
  heldUntil: Date;
}

const HELD_USERNAMES = 'held_usernames';

export const heldUsernameIndexes: IndexSpec[] = [
  { collection: HELD_USERNAMES, name: 'hold_expiry', key: { heldUntil: 1 }, expireAfterSeconds: 0 },
  { collection: HELD_USERNAMES, name: 'by_former_owner', key: { formerOwner: 1 } },
];

export class HeldUsernames {
  private readonly holds: Collection<HeldUsername>;

  constructor(store: DocumentStore) {
    this.holds = store.collection<HeldUsername>(HELD_USERNAMES);
  }

  /**
   * Holds `username` for `formerOwner` until `heldUntil` (30 days from now unless the caller
   * knows when the name was given up); a later hold of the same name replaces it.
   */
  async hold(
    username: string,
    formerOwner: string,
    heldUntil = new Date(Date.now() + USERNAME_HOLD_MS),
  ): Promise<void> {
    await this.holds.updateOne(
      { _id: username },
      { $set: { formerOwner, heldUntil } },
      { upsert: true },
    );
  }

  /** True while `username` is held for an account other than `claimant`. */
  async isHeldAgainst(username: string, claimant: string): Promise<boolean> {
    const hold = await this.holds.findOne({ _id: username });
    return hold !== null && hold.formerOwner !== claimant && hold.heldUntil.getTime() > Date.now();
  }

  /** The former owner took its name back: the hold has no purpose any more. */
  async release(username: string, formerOwner: string): Promise<void> {
    await this.holds.deleteOne({ _id: username, formerOwner });
  }

  /** The account moved to a new address: its holds follow it (idempotent). */
  async moveHolds(from: string, to: string): Promise<void> {
    await this.holds.updateMany({ formerOwner: from }, { $set: { formerOwner: to } });
  }
}
