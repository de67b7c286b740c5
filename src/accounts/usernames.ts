/**
 * Who may have which username. The accounts' unique index on `username` decides between
 * concurrent claims of one free name, on any number of pods; the held names (held-usernames.ts)
 * keep a name given up by a change or a deletion away from everybody else for 30 days.
 *
 * A change holds the old name before it releases it, and the claim re-reads the hold after it
 * took the name: a claim that slipped in between another account's hold check and its release
 * therefore always sees the hold afterwards, and gives the name back (409).
 */
import { conflict, invalidArgument } from '../platform/errors/api-error.js';
import type { Account } from './account.js';
import type { AccountRepository } from './account-repository.js';
import type { HeldUsernames } from './held-usernames.js';
import { checkUsername, isReservedUsername } from './username.js';

export interface UsernameChange {
  /** The stored (lowercase) username. */
  readonly username: string;
  /** False when the caller already had it. */
  readonly changed: boolean;
}

const taken = () => conflict('This username is taken');

export class Usernames {
  constructor(
    private readonly accounts: AccountRepository,
    readonly holds: HeldUsernames,
  ) {}

  /**
   * The username rules on `input` (trimmed, lowercased): 400 when malformed, 409 when reserved
   * or held for another account. Whether an account uses it is left to the unique index.
   */
  async claimable(input: string, claimant: string): Promise<string> {
    const check = checkUsername(input);
    if (!check.valid) throw invalidArgument(`Invalid username: ${check.reason}`);
    if (isReservedUsername(check.username)) throw conflict('This username is reserved');
    if (await this.holds.isHeldAgainst(check.username, claimant)) throw taken();
    return check.username;
  }

  /** True when `username` is held for an account other than `claimant` (CheckUsername). */
  isHeldAgainst(username: string, claimant: string): Promise<boolean> {
    return this.holds.isHeldAgainst(username, claimant);
  }

  /**
   * After an account was created with a claimable name: if a hold appeared meanwhile (another
   * account's change released the name between our check and our insert), the new account gives
   * it up by being removed, and the registration answers 409.
   */
  async confirmRegistered(account: Account): Promise<void> {
    if (!(await this.holds.isHeldAgainst(account.username, account._id))) return;
    await this.accounts.delete(account._id);
    throw taken();
  }

  /** Changes `address`'s username to `input`; the old one is held for it (UpdateUsername). */
  async change(address: string, input: string): Promise<UsernameChange> {
    const username = await this.claimable(input, address);
    const account = await this.accounts.find(address);
    if (!account) throw conflict('The account no longer exists');
    const previous = account.username;
    if (previous === username) return { username, changed: false };
    await this.holds.hold(previous, address);
    if (!(await this.accounts.rename(address, previous, username)))
      throw conflict('The username was changed by another request; try again');
    if (await this.holds.isHeldAgainst(username, address)) {
      await this.accounts.rename(address, username, previous);
      throw taken();
    }
    await this.holds.release(username, address);
    return { username, changed: true };
  }
}
