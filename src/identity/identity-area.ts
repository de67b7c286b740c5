/**
 * Everything identity needs, built once per process: accounts, sessions and their refresh
 * families, tokens, DPoP, tickets, cookies, the second factor, phone bindings, the SMS provider
 * and the audit trail. Services and the authentication middleware receive this one object.
 */
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import { accountIndexes } from './accounts/account.js';
import { AccountRepository } from './accounts/account-repository.js';
import { AuditLog, auditIndexes } from './audit/audit-log.js';
import type { AccessTokenVerifier } from './auth/authenticate.js';
import type { CookiePolicy } from './auth/cookies.js';
import { REFRESH_TOKENS, refreshTokenIndexes } from './sessions/refresh-token.js';
import type { RefreshTokenRecord } from './sessions/refresh-token.js';
import type { Revocations } from './sessions/revocations.js';
import { sessionIndexes } from './sessions/session.js';
import { SessionManager } from './sessions/session-manager.js';
import { verifyAccessTokenOrThrow } from './signin/token-errors.js';
import { WsTickets } from './sessions/ws-tickets.js';
import { DpopValidator } from './tokens/dpop.js';
import type { TokenService } from './tokens/token-service.js';
import type { TokenVerification } from './tokens/token-verification.js';
import { deviceIndexes } from './devices/device.js';
import { Lockouts } from './lockout/lockouts.js';
import { Mfa } from './mfa/mfa.js';
import { PendingSignIns } from './mfa/pending-sign-ins.js';
import type { MfaPendingCaller } from './mfa/pending-sign-ins.js';
import { SecretBox, loadMfaMasterKey } from './mfa/secret-box.js';
import { TrustedDevices, trustedDeviceIndexes } from './mfa/trusted-devices.js';
import { PhoneAccounts, phoneAccountIndexes } from './phone/phone-accounts.js';
import { createSmsProvider } from './sms/sms-provider.js';
import type { SmsProvider } from './sms/sms-provider.js';

export interface Identity {
  readonly config: Config;
  readonly accounts: AccountRepository;
  readonly sessions: SessionManager;
  readonly revocations: Revocations;
  readonly refreshTokens: Collection<RefreshTokenRecord>;
  readonly tokens: TokenService;
  readonly verifyAccessToken: AccessTokenVerifier;
  readonly dpop: DpopValidator;
  readonly wsTickets: WsTickets;
  readonly audit: AuditLog;
  readonly lockouts: Lockouts;
  readonly cookies: CookiePolicy;
  readonly sharedState: SharedState;
  readonly logger: Logger;
  readonly mfa: Mfa;
  readonly pendingSignIns: PendingSignIns;
  /** Verifies the `mfa_token` of an MFA-pending sign-in; throws a 401 ConnectError otherwise. */
  readonly verifyMfaToken: (token: string) => Promise<MfaPendingCaller>;
  readonly phoneAccounts: PhoneAccounts;
  readonly sms: SmsProvider;
}

export async function createIdentity(
  config: Config,
  store: DocumentStore,
  sharedState: SharedState,
  verification: TokenVerification,
  logger: Logger,
): Promise<Identity> {
  await store.ensureIndexes([
    ...accountIndexes,
    ...sessionIndexes,
    ...refreshTokenIndexes,
    ...deviceIndexes,
    ...auditIndexes,
    ...trustedDeviceIndexes,
    ...phoneAccountIndexes,
  ]);
  const { tokens, revocations } = verification;
  const accounts = new AccountRepository(store);
  const lockouts = new Lockouts(sharedState, config.rateLimitsEnabled);
  const pendingSignIns = new PendingSignIns(sharedState, tokens);
  const box = new SecretBox(await loadMfaMasterKey(config.mfaEncryptionKey, config.dataDir));
  return {
    config,
    accounts,
    sessions: new SessionManager(store, revocations, { ttlMs: config.sessionTtlMs, idleTimeoutMs: config.sessionIdleTimeoutMs }),
    revocations,
    refreshTokens: store.collection<RefreshTokenRecord>(REFRESH_TOKENS),
    tokens,
    verifyAccessToken: (token) => verifyAccessTokenOrThrow(tokens, token),
    dpop: new DpopValidator({ sharedState }),
    wsTickets: new WsTickets(sharedState),
    audit: new AuditLog(store),
    lockouts,
    cookies: { secure: config.cookieSecure, sameSite: config.cookieSameSite, maxAgeSeconds: Math.floor(config.sessionTtlMs / 1000) },
    sharedState,
    logger,
    mfa: new Mfa({ store, box, accounts, lockouts, trustedDevices: new TrustedDevices(store, config.mfaTrustedDeviceTtlMs) }),
    pendingSignIns,
    verifyMfaToken: (token) => pendingSignIns.verifyToken(token),
    phoneAccounts: new PhoneAccounts(store),
    sms: createSmsProvider(config, logger),
  };
}
