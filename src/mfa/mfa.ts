/**
 * The second factor of an account: TOTP setup and confirmation, verification of a TOTP or
 * backup code (with replay refusal and the account lockout), backup-code sets and turning MFA
 * off. The RPCs (../mfa-service.ts) and the sign-in gate (../signin/mfa-gate.ts) are built on it.
 *
 * Every write that must not happen twice is a conditional update on the record (a time step
 * only moves forward; a backup code is marked used only while unused and of the current set),
 * so two concurrent requests can never both spend one code.
 */
import type { Lockouts } from '../identity/lockout/lockouts.js';
import { Code, ConnectError } from '@connectrpc/connect';
import {
  conflict,
  gone,
  invalidArgument,
  notFound,
  permissionDenied,
  unauthenticated,
} from '../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import {
  recordFailures,
  recordSuccesses,
  refuseWhileLocked,
} from '../identity/lockout/lockout-report.js';
import type { LockoutTarget } from '../identity/lockout/lockout-report.js';
import {
  findUnusedCode,
  hashBackupCode,
  newBackupCodes,
  normalizeBackupCode,
  unusedCount,
} from './backup-codes.js';
import type { StoredBackupCode } from './backup-codes.js';
import { MFA_RECORDS } from './mfa-record.js';
import type { MfaRecord } from './mfa-record.js';
import type { SecretBox } from './secret-box.js';
import { TOTP_CODE, Totp } from './totp.js';
import type { TrustedDevices } from '../identity/signin/trusted-devices.js';

/** How long a TOTP setup waits for EnableTotp. */
export const SETUP_TTL_MS = 10 * 60_000;

/** What proves the second factor: exactly one of the two members. */
export interface FactorAnswer {
  code: string;
  backupCode: string;
}

/** A well-formed answer: a TOTP code, or a normalised backup code. */
export type ParsedAnswer =
  { totp: string; backupCode?: never } | { totp?: never; backupCode: string };

/** Checks the shape of an answer (400 otherwise); `allowBackupCode` false: only a TOTP code. */
export function parseAnswer(answer: FactorAnswer, allowBackupCode: boolean): ParsedAnswer {
  const useBackup = allowBackupCode && answer.backupCode !== '';
  if (useBackup === (answer.code !== ''))
    throw invalidArgument(
      allowBackupCode ? 'Send exactly one of code and backup_code' : 'code is required',
    );
  if (useBackup) return { backupCode: normalizeBackupCode(answer.backupCode) };
  if (!TOTP_CODE.test(answer.code)) throw invalidArgument('code must be 6 digits');
  return { totp: answer.code };
}

export interface VerifiedFactor {
  method: 'totp' | 'backup_code';
  backupCodesRemaining: number;
}

export interface MfaDependencies {
  store: DocumentStore;
  box: SecretBox;
  accounts: AccountRepository;
  lockouts: Lockouts;
  trustedDevices: TrustedDevices;
  totp?: Totp;
}

const isOn = (
  record: MfaRecord | null,
): record is MfaRecord & { secret: string; enabledAt: Date } =>
  record?.enabledAt != null && record.secret !== null;
/** MFA failures count toward the account's lockout, with its failed sign-ins (AdminService.UnlockLockout clears it). */
export const mfaLockout = (address: string): LockoutTarget => ['user', address];

export class Mfa {
  readonly trustedDevices: TrustedDevices;
  private readonly records: Collection<MfaRecord>;
  private readonly box: SecretBox;
  private readonly accounts: AccountRepository;
  private readonly lockouts: Lockouts;
  private readonly totp: Totp;

  constructor(deps: MfaDependencies) {
    this.records = deps.store.collection<MfaRecord>(MFA_RECORDS);
    this.box = deps.box;
    this.accounts = deps.accounts;
    this.lockouts = deps.lockouts;
    this.trustedDevices = deps.trustedDevices;
    this.totp = deps.totp ?? new Totp();
  }

  find(address: string): Promise<MfaRecord | null> {
    return this.records.findOne({ _id: address });
  }

  /** The record of an account with MFA on; `409 CONFLICT` otherwise. */
  async requireOn(address: string): Promise<MfaRecord & { secret: string; enabledAt: Date }> {
    const record = await this.find(address);
    if (!isOn(record)) throw conflict('MFA is not on for this account');
    return record;
  }

  async setup(address: string, issuer: string, accountName: string) {
    if (isOn(await this.find(address))) throw conflict('MFA is already on: turn it off first');
    const secret = this.totp.newSecret();
    const expiresAt = new Date(Date.now() + SETUP_TTL_MS);
    await this.records.updateOne(
      { _id: address },
      {
        $set: { pendingSecret: this.box.seal(secret, address), pendingExpiresAt: expiresAt },
        $setOnInsert: {
          secret: null,
          enabledAt: null,
          lastTimeStep: -1,
          backupCodes: [],
          backupCodesGeneratedAt: null,
        },
      },
      { upsert: true },
    );
    return {
      secret,
      provisioningUri: this.totp.provisioningUri(issuer, accountName, secret),
      expiresAt,
    };
  }

  /** Confirms the pending setup with a code and turns MFA on; returns the first backup codes. */
  async enable(address: string, code: string): Promise<{ backupCodes: string[]; enabledAt: Date }> {
    if (!TOTP_CODE.test(code)) throw invalidArgument('code must be 6 digits');
    const record = await this.find(address);
    if (isOn(record)) throw conflict('MFA is already on');
    if (!record?.pendingSecret || !record.pendingExpiresAt)
      throw notFound('No TOTP setup is in progress: call SetupTotp first');
    if (record.pendingExpiresAt.getTime() <= Date.now())
      throw gone('The TOTP setup expired: call SetupTotp again');
    const check = await this.totp.check(
      this.box.open(record.pendingSecret, address),
      code,
      record.lastTimeStep,
    );
    if (!check.valid) throw unauthenticated('The code is not valid', 'INVALID_CODE');
    const enabledAt = new Date();
    const { codes, stored } = newBackupCodes(this.box, address);
    // Only the setup that was checked is confirmed: a concurrent SetupTotp or EnableTotp wins or loses as a whole.
    const result = await this.records.updateOne(
      { _id: address, enabledAt: null, pendingSecret: record.pendingSecret },
      {
        $set: {
          secret: record.pendingSecret,
          enabledAt,
          lastTimeStep: check.timeStep,
          pendingSecret: null,
          pendingExpiresAt: null,
          backupCodes: stored,
          backupCodesGeneratedAt: enabledAt,
        },
      },
    );
    if (result.matchedCount === 0)
      throw conflict('The TOTP setup changed meanwhile: call SetupTotp again');
    await this.accounts.setMfaEnabled(address, true);
    return { backupCodes: codes, enabledAt };
  }

  /**
   * Checks a TOTP code or a backup code (see parseAnswer), consuming what it accepts. Wrong
   * codes count toward the account's lockout; a success clears the count.
   */
  async verify(address: string, answer: ParsedAnswer): Promise<VerifiedFactor> {
    await refuseWhileLocked(this.lockouts, [mfaLockout(address)]);
    const record = await this.requireOn(address);
    const accepted =
      answer.totp !== undefined
        ? await this.spendTotp(record, answer.totp)
        : await this.spendBackupCode(record, answer.backupCode);
    if (accepted === 'invalid') {
      await recordFailures(this.lockouts, [mfaLockout(address)]);
      throw unauthenticated('The code is not valid', 'INVALID_CODE');
    }
    if (accepted === 'replayed')
      throw unauthenticated('This code was already used: wait for the next one', 'REPLAY_DETECTED');
    await recordSuccesses(this.lockouts, [mfaLockout(address)]);
    const usedBackupCode = answer.backupCode !== undefined;
    return {
      method: usedBackupCode ? 'backup_code' : 'totp',
      backupCodesRemaining: unusedCount(record.backupCodes) - (usedBackupCode ? 1 : 0),
    };
  }

  /**
   * The second factor of a sensitive operation (DeleteAccount): one field holding a current TOTP
   * code or an unused backup code (spent when accepted). Nothing to check while MFA is off;
   * missing, malformed or wrong is `403 FORBIDDEN`, and wrong codes count on the lockout as at
   * VerifyMfa.
   */
  async confirm(address: string, code: string): Promise<void> {
    if (!isOn(await this.find(address))) return;
    if (code === '')
      throw permissionDenied('Multi-factor authentication is on: mfa_code is required');
    const refused = () =>
      permissionDenied('mfa_code is not a current code or an unused backup code');
    let answer: ParsedAnswer;
    try {
      answer = TOTP_CODE.test(code) ? { totp: code } : { backupCode: normalizeBackupCode(code) };
    } catch {
      throw refused();
    }
    try {
      await this.verify(address, answer);
    } catch (error) {
      if (error instanceof ConnectError && error.code === Code.Unauthenticated) throw refused();
      throw error;
    }
  }

  /** Turns MFA off: the secret, the backup codes and the trusted devices go. */
  async disable(address: string): Promise<void> {
    await this.accounts.setMfaEnabled(address, false);
    await this.records.deleteOne({ _id: address });
    await this.trustedDevices.removeAll(address);
  }

  /**
   * Moves the MFA settings to the account's new address (recovery keeps them): the TOTP secret
   * is re-sealed for the new address, an unconfirmed setup is dropped, and the backup codes go,
   * since their HMACs bind the old address (the user makes new ones). Trusted devices go: the
   * new wallet's first sign-in passes the second factor. Idempotent; an existing record at `to`
   * is kept.
   */
  async move(from: string, to: string): Promise<void> {
    const record = await this.find(from);
    if (record) {
      const secret =
        record.secret === null ? null : this.box.seal(this.box.open(record.secret, from), to);
      const { _id, ...kept } = record;
      const moved = {
        ...kept,
        secret,
        pendingSecret: null,
        pendingExpiresAt: null,
        backupCodes: [],
        backupCodesGeneratedAt: null,
      };
      await this.records.updateOne({ _id: to }, { $setOnInsert: moved }, { upsert: true });
      await this.records.deleteOne({ _id: from });
    }
    await this.trustedDevices.removeAll(from);
  }

  /** A new set of backup codes in place of the current one. */
  async regenerateBackupCodes(
    address: string,
  ): Promise<{ backupCodes: string[]; generatedAt: Date }> {
    const generatedAt = new Date();
    const { codes, stored } = newBackupCodes(this.box, address);
    await this.records.updateOne(
      { _id: address },
      { $set: { backupCodes: stored, backupCodesGeneratedAt: generatedAt } },
    );
    return { backupCodes: codes, generatedAt };
  }

  private async spendTotp(
    record: MfaRecord & { secret: string },
    code: string,
  ): Promise<'accepted' | 'invalid' | 'replayed'> {
    const check = await this.totp.check(
      this.box.open(record.secret, record._id),
      code,
      record.lastTimeStep,
    );
    if (!check.valid) return check.reason;
    // The step only moves forward: of two requests with one code, one matches and one does not.
    const moved = await this.records.updateOne(
      { _id: record._id, lastTimeStep: { $lt: check.timeStep } },
      { $set: { lastTimeStep: check.timeStep } },
    );
    return moved.matchedCount === 1 ? 'accepted' : 'replayed';
  }

  /**
   * Marks the code used only while it is unused: `$elemMatch` finds the element by its hash
   * with `usedAt` null, and the positional `$` sets that element. (A guard on
   * `backupCodes.<i>.usedAt: null` would match on MongoDB even after the code is spent: a
   * numeric step also looks for a field "<i>" in every element, and missing matches null.)
   */
  private async spendBackupCode(
    record: MfaRecord,
    normalized: string,
  ): Promise<'accepted' | 'invalid'> {
    const hash = hashBackupCode(this.box, record._id, normalized);
    const index = findUnusedCode(record.backupCodes, hash);
    if (index < 0) return 'invalid';
    const stored = record.backupCodes[index] as StoredBackupCode;
    const spent = await this.records.updateOne(
      {
        _id: record._id,
        backupCodesGeneratedAt: record.backupCodesGeneratedAt,
        backupCodes: { $elemMatch: { hash: stored.hash, usedAt: null } },
      },
      { $set: { 'backupCodes.$.usedAt': new Date() } },
    );
    return spent.matchedCount === 1 ? 'accepted' : 'invalid';
  }
}
