/**
 * The parts of a sign-in flow that the identity area builds once and hands to the flows of the
 * areas above it (phone sign-in, the MFA step), so that every way in ends in the same sessions,
 * tokens, lockouts and audit trail.
 */
import type { AccountRepository } from '../../accounts/account-repository.js';
import type { Usernames } from '../../accounts/usernames.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Lockouts } from '../lockout/lockouts.js';
import type { RefreshTokenRepository } from '../sessions/refresh-token-repository.js';
import type { SessionManager } from '../sessions/session-manager.js';
import type { DpopValidator } from '../tokens/dpop.js';
import type { TokenService } from '../tokens/token-service.js';
import type { MfaGate } from './mfa-gate.js';
import type { PendingSignIns } from './pending-sign-ins.js';
import type { Registration } from './registration.js';
import type { SessionStarter } from './session-starter.js';
import type { TokenPairIssuer } from './token-pair.js';
import type { WalletProof } from './wallet-proof.js';

export interface SignInParts {
  readonly accounts: AccountRepository;
  readonly audit: AuditLog;
  readonly lockouts: Lockouts;
  readonly dpop: DpopValidator;
  readonly tokens: TokenService;
  readonly sessions: SessionManager;
  readonly refreshTokens: RefreshTokenRepository;
  readonly tokenPairs: TokenPairIssuer;
  readonly sessionStarter: SessionStarter;
  readonly pendingSignIns: PendingSignIns;
  readonly walletProof: WalletProof;
  readonly usernames: Usernames;
  readonly registration: Registration;
  readonly mfaGate: MfaGate;
}
