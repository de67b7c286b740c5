/**
 * MFA-pending sign-ins. When the first factor (wallet signature, phone login) succeeds for an
 * account with MFA on, no session exists yet: the client gets a short-lived `mfa_token` (an
 * MFA-pending JWT, see TokenService) and a record of how it signed in is kept under the
 * token's id. The token authenticates only the RPCs in MFA_PENDING_METHODS, and only while
 * its record is unused: VerifyMfa completes the sign-in once, and the token is dead after.
 */
import type { DescMethod } from '@bufbuild/protobuf';
import { createContextKey } from '@connectrpc/connect';
import { decodeProtectedHeader } from 'jose';
import { MfaService } from '../../gen/service/v1/mfa_pb.js';
import { unauthenticated } from '../../platform/errors/api-error.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import type { Session } from '../sessions/session.js';
import { OneTimeRecords } from '../secrets/one-time-records.js';
import type { OneTimeRecord } from '../secrets/one-time-records.js';
import { asUnauthenticated } from '../signin/token-errors.js';
import { DEFAULT_MFA_TOKEN_TTL_SECONDS } from '../tokens/token-service.js';
import type { TokenService } from '../tokens/token-service.js';

/** The only RPCs an `mfa_token` authenticates (mfa.proto); every other one answers 401 to it. */
export const MFA_PENDING_METHODS: ReadonlySet<DescMethod> = new Set([
  MfaService.method.createMfaChallenge,
  MfaService.method.verifyMfa,
  MfaService.method.getMfaLockoutStatus,
]);

/** How the first factor signed in, for the session that VerifyMfa opens. */
export interface PendingSignIn {
  address: string;
  authMethod: Session['authMethod'];
  deviceName: string;
}

/** The caller of an RPC authenticated by an `mfa_token`. Deliberately not a Caller: requireCaller never returns it. */
export interface MfaPendingCaller {
  readonly address: string;
  readonly tokenId: string;
}

export const mfaPendingCallerKey = createContextKey<MfaPendingCaller | undefined>(undefined, { description: 'MFA-pending caller' });

/** True when the Bearer token says it is an MFA-pending token (its `typ`); it is verified separately. */
export function looksLikeMfaToken(token: string): boolean {
  try {
    return decodeProtectedHeader(token).typ === 'mfa+jwt';
  } catch {
    return false;
  }
}

export class PendingSignIns {
  private readonly records: OneTimeRecords<PendingSignIn>;

  constructor(
    sharedState: SharedState,
    private readonly tokens: TokenService,
  ) {
    this.records = new OneTimeRecords(sharedState, 'mfa-pending', 'MFA-pending sign-in', DEFAULT_MFA_TOKEN_TTL_SECONDS * 1000);
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
    if (!(await this.records.markUsed(record))) throw unauthenticated('This sign-in was already completed');
    return record.payload;
  }

  private async usableRecord(tokenId: string): Promise<OneTimeRecord<PendingSignIn>> {
    const record = await this.records.read(tokenId);
    if (!record || record.expired || record.used) throw unauthenticated('The MFA token is no longer valid: sign in again');
    return record;
  }
}
