/**
 * SMS verification codes: 6 random digits, valid 5 minutes, stored only as a salted SHA-256
 * under the number's phone hash (a new code replaces the previous one), at most MAX_ATTEMPTS
 * guesses each, consumed by the check that succeeds.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { gone, notFound } from '../platform/errors/api-error.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { OneTimeRecords } from '../platform/secrets/one-time-records.js';
import { hashSecret, matchesHash } from '../platform/secrets/session-secrets.js';

export const SMS_CODE_TTL_SECONDS = 300;
export const SMS_CODE_LENGTH = 6;
/** Guesses per code; the number's lockout (5 failures) usually ends guessing first. */
const MAX_ATTEMPTS = 5;

interface StoredCode {
  salt: string;
  hash: string;
}

export class SmsCodes {
  private readonly records: OneTimeRecords<StoredCode>;

  constructor(sharedState: SharedState) {
    this.records = new OneTimeRecords(sharedState, 'sms-code', 'code', SMS_CODE_TTL_SECONDS * 1000);
  }

  /** A new code for the number, replacing any earlier one; the caller sends it. */
  async issue(phoneHash: string): Promise<string> {
    const code = String(randomInt(0, 10 ** SMS_CODE_LENGTH)).padStart(SMS_CODE_LENGTH, '0');
    const salt = randomBytes(16).toString('base64url');
    await this.records.issue({ salt, hash: hashSecret(`${salt}:${code}`) }, phoneHash);
    return code;
  }

  /**
   * Consumes the number's code when `code` is it; false when it is not. 404: none was sent;
   * 410: expired, used or out of attempts.
   */
  async consume(phoneHash: string, code: string): Promise<boolean> {
    const record = await this.records.live(phoneHash, () =>
      notFound('No code was sent to this number'),
    );
    // Counted before the comparison, so that concurrent guesses cannot exceed the limit.
    if ((await this.records.countAttempt(record)) > MAX_ATTEMPTS)
      throw gone('Too many wrong codes: request a new one');
    if (!matchesHash(`${record.payload.salt}:${code}`, record.payload.hash)) return false;
    await this.records.consume(record);
    return true;
  }
}
