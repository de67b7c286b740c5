/**
 * MFA challenges (CreateMfaChallenge → VerifyMfa): valid 5 minutes, held by one caller (a
 * pending sign-in or a session), consumed by the VerifyMfa that succeeds. Creating one
 * replaces the holder's previous challenge, which then answers 410.
 */
import { gone, invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { OneTimeRecords } from '../platform/secrets/one-time-records.js';
import type { OneTimeRecord } from '../platform/secrets/one-time-records.js';

export const CHALLENGE_TTL_SECONDS = 300;

/** Who may answer a challenge: the account, and the pending sign-in or session that asked. */
export interface ChallengeHolder {
  address: string;
  /** `pending:<mfa token id>` or `session:<session id>`. */
  ref: string;
}

export class MfaChallenges {
  private readonly records: OneTimeRecords<ChallengeHolder>;

  constructor(private readonly sharedState: SharedState) {
    this.records = new OneTimeRecords(
      sharedState,
      'mfa-challenge',
      'MFA challenge',
      CHALLENGE_TTL_SECONDS * 1000,
    );
  }

  async create(holder: ChallengeHolder): Promise<{ id: string; expiresAt: Date }> {
    const issued = await this.records.issue(holder);
    await this.sharedState.set(currentKey(holder), issued.id, {
      ttlMs: CHALLENGE_TTL_SECONDS * 1000,
    });
    return issued;
  }

  /** The holder's live challenge `id`: 404 when unknown or someone else's, 410 when expired, used or replaced. */
  async check(id: string, holder: ChallengeHolder): Promise<OneTimeRecord<ChallengeHolder>> {
    if (id === '') throw invalidArgument('challenge_id is required');
    if (!/^[A-Za-z0-9_-]{1,100}$/.test(id)) throw invalidArgument('challenge_id is malformed');
    const record = await this.records.live(
      id,
      () => notFound('No such MFA challenge'),
      (held) => held.address === holder.address && held.ref === holder.ref,
    );
    if ((await this.sharedState.get(currentKey(holder))) !== id)
      throw gone('A newer MFA challenge replaced this one');
    return record;
  }

  /** Spends the challenge; 410 when a concurrent VerifyMfa spent it first. */
  consume(record: OneTimeRecord<ChallengeHolder>): Promise<void> {
    return this.records.consume(record);
  }
}

const currentKey = (holder: ChallengeHolder) => `mfa-challenge-current:${holder.ref}`;
