/**
 * RecoveryChallenge's effect, once the new wallet proved itself: the account moves to the new
 * wallet, by a `ready` social request or by one of the account's backup codes (spent when
 * accepted; 5 wrong ones in a row lock the mode for an hour). The move is the account walk
 * (src/account-lifecycle, through `AccountMoves`): recorded before anything changes, so a process that dies mid-way leaves a
 * walk that the next start finishes, and a retried challenge joins it.
 */
import {
  conflict,
  gone,
  lockedOut,
  notFound,
  unauthenticated,
} from '../platform/errors/api-error.js';
import type { RecoveryConfigs } from './recovery-config.js';
import { findUnusedCode, normalizeRecoveryCode } from './recovery-codes.js';
import type { KeyedHash } from './recovery-codes.js';
import type { RecoveryNotices } from './recovery-notices.js';
import type { Wallets } from './recovery-opening.js';
import type { RecoveryRequestRecord, RecoveryRequests } from './recovery-request.js';
import { statusAt } from './recovery-request.js';

/** The account walk's moves (src/account-lifecycle), as recovery uses them. */
export interface AccountMoves {
  /** Moves the account to the new address, to the end (joining a move under way). */
  move(from: string, to: string): Promise<void>;
  /** A move of `from` to `to` was recorded (finished or not). */
  isMoving(from: string, to: string): Promise<boolean>;
}

export interface RecoveryCompletionDependencies {
  readonly configs: RecoveryConfigs;
  readonly requests: RecoveryRequests;
  readonly moves: AccountMoves;
  readonly notices: RecoveryNotices;
  readonly wallets: Wallets;
  readonly mac: KeyedHash;
}

export class RecoveryCompletion {
  constructor(private readonly deps: RecoveryCompletionDependencies) {}

  async bySocialRequest(request: RecoveryRequestRecord, now: Date): Promise<RecoveryRequestRecord> {
    const status = statusAt(request, now);
    if (status === 'pending' || status === 'time_locked')
      throw conflict(`The request is ${status}: it cannot be completed yet`);
    const retried =
      status === 'completed' &&
      (await this.deps.moves.isMoving(request.address, request.newWalletAddress));
    if (status !== 'ready' && !retried) throw gone(`The request is ${status}`);
    await this.move(request.address, request.newWalletAddress);
    // The move closed the request as completed already (recovery-account-data.ts), unless it
    // was recorded before a crash and finished by the resumer; either way it is now.
    await this.deps.requests.close(request, 'completed', now);
    const completed = (await this.deps.requests.find(request._id))!;
    await this.deps.notices.requestChanged(completed, 'completed', now);
    return completed;
  }

  /** Returns how many unused backup codes are left. */
  async byBackupCode(
    address: string,
    newWalletAddress: string,
    code: string,
    now: Date,
  ): Promise<number> {
    const { configs, mac } = this.deps;
    const config = await configs.find(address);
    if (!config || !(await this.deps.wallets.hasAccount(address)))
      throw notFound('No account with recovery backup codes at this address');
    if (config.codesLockedUntil && config.codesLockedUntil > now)
      throw lockedOut(config.codesLockedUntil.getTime() - now.getTime());
    await this.refuseTakenWallet(address, newWalletAddress);
    const normalized = normalizeRecoveryCode(code);
    const hash =
      normalized === undefined
        ? undefined
        : findUnusedCode(mac, config.configurationId, config.codes, normalized);
    if (hash === undefined || !(await configs.spendCode(config, hash))) {
      await configs.recordWrongCode(address, now);
      throw unauthenticated('The backup code is not valid');
    }
    await this.move(address, newWalletAddress);
    return config.codes.filter((stored) => stored.usedAt === null).length - 1;
  }

  private async refuseTakenWallet(from: string, to: string): Promise<void> {
    if (!(await this.deps.moves.isMoving(from, to)) && (await this.deps.wallets.isTaken(to)))
      throw conflict('new_wallet_address already has an account');
  }

  private async move(from: string, to: string): Promise<void> {
    await this.refuseTakenWallet(from, to);
    await this.deps.moves.move(from, to);
  }
}
