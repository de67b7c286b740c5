/**
 * Phone login challenges (CreatePhoneLoginChallenge → PhoneLogin): the exact text the device
 * signs with its identity key, valid 2 minutes, single use. The text names the challenge, the
 * number and a fresh nonce, so a signature of one challenge is worth nothing for another.
 */
import { randomBytes } from 'node:crypto';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { OneTimeRecords } from '../platform/secrets/one-time-records.js';
import type { OneTimeRecord } from '../platform/secrets/one-time-records.js';

export const LOGIN_CHALLENGE_TTL_SECONDS = 120;

export interface LoginChallenge {
  address: string;
  phoneHash: string;
  text: string;
}

/** The challenge format of phone.proto (LF line endings, no trailing newline). */
export function challengeText(
  serviceName: string,
  id: string,
  phoneHash: string,
  nowMs: number,
): string {
  return [
    `${serviceName} Phone Login`,
    `Challenge: ${id}`,
    `Phone: ${phoneHash}`,
    `Nonce: ${randomBytes(32).toString('base64url')}`,
    `Timestamp: ${nowMs}`,
  ].join('\n');
}

export class LoginChallenges {
  private readonly records: OneTimeRecords<LoginChallenge>;

  constructor(
    sharedState: SharedState,
    private readonly serviceName: string,
  ) {
    this.records = new OneTimeRecords(
      sharedState,
      'phone-login',
      'login challenge',
      LOGIN_CHALLENGE_TTL_SECONDS * 1000,
    );
  }

  async create(
    address: string,
    phoneHash: string,
  ): Promise<{ id: string; text: string; expiresAt: Date }> {
    const id = randomBytes(24).toString('base64url');
    const text = challengeText(this.serviceName, id, phoneHash, Date.now());
    const { expiresAt } = await this.records.issue({ address, phoneHash, text }, id);
    return { id, text, expiresAt };
  }

  /** The live challenge: 400 malformed, 404 unknown, 410 expired or used. */
  async check(id: string): Promise<OneTimeRecord<LoginChallenge>> {
    if (id === '') throw invalidArgument('challenge_id is required');
    if (!/^[A-Za-z0-9_-]{32}$/.test(id)) throw invalidArgument('challenge_id is malformed');
    return this.records.live(id, () => notFound('No such login challenge'));
  }

  consume(record: OneTimeRecord<LoginChallenge>): Promise<void> {
    return this.records.consume(record);
  }
}
