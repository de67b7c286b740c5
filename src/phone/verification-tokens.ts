/**
 * Verification tokens: the proof, for 10 minutes and one use, that the caller received the SMS
 * code of a number (VerifySmsCode). RegisterPhone, CreatePhoneLoginChallenge and
 * RevokeAbandonedPhoneRegistration each consume one.
 */
import { invalidArgument, unauthenticated } from '../platform/errors/api-error.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { OneTimeRecords } from '../platform/secrets/one-time-records.js';
import type { OneTimeRecord } from '../platform/secrets/one-time-records.js';

export const VERIFICATION_TOKEN_TTL_SECONDS = 600;

export class VerificationTokens {
  private readonly records: OneTimeRecords<{ phoneHash: string }>;

  constructor(sharedState: SharedState) {
    this.records = new OneTimeRecords(
      sharedState,
      'phone-verification',
      'verification token',
      VERIFICATION_TOKEN_TTL_SECONDS * 1000,
    );
  }

  async issue(phoneHash: string): Promise<{ token: string; expiresAt: Date }> {
    const { id, expiresAt } = await this.records.issue({ phoneHash });
    return { token: id, expiresAt };
  }

  /** The live token's record: 400 when missing or malformed, 401 when unknown, 410 when expired or used. */
  async check(token: string): Promise<OneTimeRecord<{ phoneHash: string }>> {
    if (token === '') throw invalidArgument('verification_token is required');
    if (!/^[A-Za-z0-9_-]{20,100}$/.test(token))
      throw unauthenticated('The verification token is not valid');
    return this.records.live(token, () => unauthenticated('The verification token is not valid'));
  }

  /** Spends a checked token; 410 when a concurrent call spent it first. */
  consume(record: OneTimeRecord<{ phoneHash: string }>): Promise<void> {
    return this.records.consume(record);
  }
}
