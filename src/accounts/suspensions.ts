/**
 * Operator suspensions of accounts (moderation.proto, ModerateAccount): the end time is kept on
 * the account record, in the store, so that it survives restarts and a Redis that comes back
 * empty like every other security state. Every sign-in (identity's SessionStarter) and every
 * send asks `refuse` before it goes on; ending the account's sessions is the moderation area's
 * part of a suspension.
 */
import { Code } from '@connectrpc/connect';
import { apiError } from '../platform/errors/api-error.js';
import type { Account } from './account.js';
import type { AccountRepository } from './account-repository.js';

/** The end of the suspension in force now, if any. */
export function suspensionOf(
  account: Pick<Account, 'suspendedUntil'> | null,
  now = new Date(),
): Date | undefined {
  const until = account?.suspendedUntil;
  return until && until.getTime() > now.getTime() ? until : undefined;
}

/** The documented refusal: `403 ACCOUNT_SUSPENDED`, with the end time (the account's own, so no leak). */
export const accountSuspended = (until: Date) =>
  apiError(
    Code.PermissionDenied,
    'ACCOUNT_SUSPENDED',
    `This account is suspended until ${until.toISOString()}`,
  );

export class Suspensions {
  constructor(private readonly accounts: AccountRepository) {}

  /** Throws `403 ACCOUNT_SUSPENDED` while the account is suspended. */
  async refuse(address: string): Promise<void> {
    const until = suspensionOf(await this.accounts.find(address));
    if (until) throw accountSuspended(until);
  }

  /** Suspends until `until` (replacing an earlier end); false when there is no live account. */
  suspend(address: string, until: Date): Promise<boolean> {
    return this.accounts.setSuspendedUntil(address, until);
  }

  /** Ends the suspension now; false when there is no live account. */
  lift(address: string): Promise<boolean> {
    return this.accounts.setSuspendedUntil(address, null);
  }
}
