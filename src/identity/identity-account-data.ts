/**
 * Identity's records in an account move (social recovery) or deletion, and the first step of
 * both (`close`): the wallet is retired (no sign-in, no registration: retired-wallets.ts) and
 * every session ends with its refresh tokens, before any other owner changes anything.
 *
 * A move keeps the account: the account record (username, display name, permissions, MFA flag)
 * is written under the new address from the copy taken at `close`; devices (with their push
 * tokens) are re-keyed. The second factor and the phone binding are their own areas' owners,
 * which the walk runs just before this one (mfa-account-data.ts, phone-account-data.ts). The
 * audit trail stays under the old address, where it happened. Where the new address already
 * holds a record, that record is kept.
 *
 * A deletion holds the username for 30 days (held-usernames.ts, the one record of held names),
 * as long as the wallet is refused, both counted from the wallet's retirement so that a resumed
 * deletion holds it exactly as long; it hides the account record (deleted) while the other
 * owners run, removes devices, ends the sessions, deletes refresh tokens, and removes the account record last. The
 * hold is written before the record goes, so the name is never free in between. The audit
 * trail is kept for its 180 days: it is the security record of what happened.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { DeviceRepository } from './devices/device-repository.js';
import type { RefreshTokenRepository } from './sessions/refresh-token-repository.js';
import type { SessionManager } from './sessions/session-manager.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { HeldUsernames } from '../accounts/held-usernames.js';
import { USERNAME_HOLD_MS } from '../accounts/held-usernames.js';
import type { RetiredWallets } from '../accounts/retired-wallets.js';

export interface IdentityAccountDataDependencies {
  readonly accounts: AccountRepository;
  readonly retiredWallets: RetiredWallets;
  readonly heldUsernames: HeldUsernames;
  readonly sessions: SessionManager;
  readonly refreshTokens: RefreshTokenRepository;
  readonly devices: DeviceRepository;
}

export class IdentityAccountData implements AccountDataOwner {
  readonly name = 'identity';

  constructor(private readonly deps: IdentityAccountDataDependencies) {}

  /** The first step of a move (`movedTo`) or deletion (null); idempotent. */
  async close(address: string, movedTo: string | null): Promise<void> {
    const { accounts, retiredWallets, heldUsernames } = this.deps;
    if (movedTo === null) {
      const retired = await retiredWallets.retire({
        _id: address,
        reason: 'deleted',
        movedTo: null,
        account: null,
        expiresAt: new Date(Date.now() + USERNAME_HOLD_MS),
      });
      // Absent on a rerun after the last step: the hold was written before the record went.
      const account = await accounts.findRecord(address);
      if (account) await heldUsernames.hold(account.username, address, retired.expiresAt);
      await accounts.markDeleted(address, retired.retiredAt);
    } else {
      await retiredWallets.retire({
        _id: address,
        reason: 'moved',
        movedTo,
        account: await accounts.findRecord(address),
      });
    }
    await this.endSessions(address, movedTo === null ? 'account_deleted' : 'account_moved');
  }

  async moveAccount(from: string, to: string): Promise<void> {
    const { accounts, retiredWallets, devices } = this.deps;
    const retired = await retiredWallets.find(from);
    if (!retired?.account) throw new Error('an account move must close the wallet first');
    // A sign-in that passed its checks just before `close` may have opened a session since.
    await this.endSessions(from, 'account_moved');
    await devices.moveAll(from, to);
    await accounts.delete(from);
    await accounts.insertMoved({ ...retired.account, _id: to });
  }

  async deleteAccount(address: string): Promise<void> {
    const { accounts, devices } = this.deps;
    await this.endSessions(address, 'account_deleted');
    await devices.removeAll(address);
    await accounts.delete(address);
  }

  private async endSessions(address: string, reason: string): Promise<void> {
    await this.deps.sessions.endAll(address, reason);
    await this.deps.refreshTokens.removeAll(address);
  }
}
