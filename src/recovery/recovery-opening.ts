/**
 * InitiateRecovery's effect, once the new wallet proved itself: a `pending` request for the
 * account, if the account has guardians, no request is open, the recovery-email hash matches
 * and the new wallet has no account. The owner and the guardians are told.
 */
import { randomBytes } from 'node:crypto';
import { conflict, notFound, unauthenticated } from '../platform/errors/api-error.js';
import { sameDigest } from '../platform/secrets/same-digest.js';
import type { RecoveryConfigs } from './recovery-config.js';
import type { RecoveryNotices } from './recovery-notices.js';
import type { RecoveryRequestRecord, RecoveryRequests } from './recovery-request.js';
import { WINDOW_HOURS } from './recovery-request.js';

/** Identity's view of wallets, as recovery needs it. */
export interface Wallets {
  /** The address has a live account. */
  hasAccount(address: string): Promise<boolean>;
  /** The address has an account, or had one and may not take another (retired-wallets.ts). */
  isTaken(address: string): Promise<boolean>;
}

export class RecoveryOpening {
  constructor(
    private readonly configs: RecoveryConfigs,
    private readonly requests: RecoveryRequests,
    private readonly notices: RecoveryNotices,
    private readonly wallets: Wallets,
  ) {}

  async open(
    address: string,
    newWalletAddress: string,
    recoveryEmailHash: string,
    now: Date,
  ): Promise<RecoveryRequestRecord> {
    const config = await this.configs.find(address);
    if (!config || config.guardians.length === 0 || !(await this.wallets.hasAccount(address)))
      throw notFound('No account with guardians at this address');
    if (
      config.recoveryEmailHash !== '' &&
      !sameDigest(config.recoveryEmailHash, recoveryEmailHash.toLowerCase())
    ) {
      throw unauthenticated('recovery_email_hash does not match');
    }
    if (await this.wallets.isTaken(newWalletAddress))
      throw conflict('new_wallet_address already has an account');
    await this.requests.findOpen(address, now);
    const request: RecoveryRequestRecord = {
      _id: randomBytes(16).toString('hex'),
      address,
      newWalletAddress,
      status: 'pending',
      open: true,
      approvalsRequired: config.minGuardiansRequired,
      guardians: config.guardians,
      decisions: [],
      approvals: 0,
      rejections: 0,
      timeLockHours: config.timeLockHours,
      createdAt: now,
      thresholdReachedAt: null,
      unlocksAt: null,
      expiresAt: new Date(now.getTime() + this.requests.hours(WINDOW_HOURS)),
      closedAt: null,
    };
    if (!(await this.requests.open(request)))
      throw conflict('A recovery request is already open for this account');
    await this.notices.requestChanged(request, 'opened', now);
    return request;
  }
}
