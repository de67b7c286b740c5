/**
 * MFA-pending sign-ins. When the first factor (wallet signature, phone login) succeeds for an
 * account with MFA on, no session exists yet: the client gets a short-lived `mfa_token` (an
 * MFA-pending JWT, see TokenService) and a record of how it signed in is kept under the
 * token's id. The token authenticates only the RPCs in MFA_PENDING_METHODS (see
 * auth/mfa-pending-caller.ts), and only while its record is unused: VerifyMfa completes the
 * sign-in once, and the token is dead after.
 */
import { unauthenticated } from '../../platform/errors/api-error.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import type { MfaPendingCaller } from '../auth/mfa-pending-caller.js';
import type { Session } from '../sessions/session.js';
import { OneTimeRecords } from '../../platform/secrets/one-time-records.js';
import type { OneTimeRecord } from '../../platform/secrets/one-time-records.js';
import { asUnauthenticated } from './token-errors.js';
import { DEFAULT_MFA_TOKEN_TTL_SECONDS } from '../tokens/token-service.js';
import type { TokenService } from '../tokens/token-service.js';

/** How the first factor signed in, for the session that VerifyMfa opens. */
export interface PendingSignIn {
  address: string;
  authMethod: Session['authMethod'];
  deviceName: string;
}

export class PendingSignIns {
  private readonly records: OneTimeRecords<PendingSignIn>;

  constructor(
    sharedState: SharedState,
    private readonly tokens: TokenService,
  ) {
    this.records = new OneTimeRecords(
      sharedState,
      'mfa-pending',
      'MFA-pending sign-in',
      DEFAULT_MFA_TOKEN_TTL_SECONDS * 1000,
    );
  }

  async begin(signIn: PendingSignIn): Promise<{ mfaToken: string; mfaExpiresAt: string }> {
    const issued = await this.tokens.issueMfaToken({ sub: signIn.address });
    await this.records.issue(signIn, issued.jti);
    return { mfaToken: issued.token, mfaExpiresAt: issued.expiresAt.toISOString() };
  }

  /** The caller an `mfa_token` stands for; 401 when it is invalid, expired, or its sign-in was completed. */
  async verifyToken(token: string): Promise<MfaPendingCaller> {
    const claims = await asUnauthenticated(this.tokens.verifyMfaToken(token), 'MFA token');
    await this.usableRecord(claims.jti);
    return { address: claims.sub, tokenId: claims.jti };
  }

  /** Ends the pending sign-in (once): what VerifyMfa needs to open the session. */
  async complete(caller: MfaPendingCaller): Promise<PendingSignIn> {
    const record = await this.usableRecord(caller.tokenId);
    if (!(await this.records.markUsed(record)))
      throw unauthenticated('This sign-in was already completed');
    return record.payload;
  }

  private async usableRecord(tokenId: string): Promise<OneTimeRecord<PendingSignIn>> {
    const record = await this.records.read(tokenId);
    if (!record || record.expired || record.used)
      throw unauthenticated('The MFA token is no longer valid: sign in again');
    return record;
  }
}
