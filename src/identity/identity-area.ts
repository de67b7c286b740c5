/**
 * The identity area of an api process: accounts, sessions and their refresh families, sign-in
 * (wallet and phone) with its steps, the second factor, devices, the audit trail and the
 * lockouts. Each RPC flow receives the few parts it uses (its `…Dependencies` type); this
 * factory is the one place inside the area that builds them and connects them. The token
 * service, the revocations and the /ws tickets are shared with the ws tier, so the app builds
 * them once and passes them in. The ended-session marks in shared state are a mirror of the
 * store: the area hands the app their copy from the store (`mirror`) for the mirror keeper.
 */
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { accountIndexes } from './accounts/account.js';
import { AccountRepository } from './accounts/account-repository.js';
import { HeldUsernames, heldUsernameIndexes } from './accounts/held-usernames.js';
import { RetiredWallets, retiredWalletIndexes } from './accounts/retired-wallets.js';
import { Usernames } from './accounts/usernames.js';
import { AuditLog, auditIndexes } from './audit/audit-log.js';
import { authenticate } from './auth/authenticate.js';
import { RequestSignatures } from './auth/request-signatures.js';
import type { CookiePolicy } from './auth/cookies.js';
import { createAuthService } from './auth-service.js';
import { IdentityAccountData } from './identity-account-data.js';
import { deviceIndexes } from './devices/device.js';
import { DeviceRepository } from './devices/device-repository.js';
import { createDeviceService } from './device-service.js';
import { Lockouts } from './lockout/lockouts.js';
import { Mfa } from './mfa/mfa.js';
import { MfaChallenges } from './mfa/mfa-challenges.js';
import { PendingSignIns } from './mfa/pending-sign-ins.js';
import { SecretBox, loadMfaMasterKey } from './mfa/secret-box.js';
import { TrustedDevices, trustedDeviceIndexes } from './mfa/trusted-devices.js';
import { createMfaService } from './mfa-service.js';
import { LoginChallenges } from './phone/login-challenges.js';
import { PhoneAccounts, phoneAccountIndexes } from './phone/phone-accounts.js';
import { SmsCodes } from './phone/sms-codes.js';
import { VerificationTokens } from './phone/verification-tokens.js';
import { createPhoneAuthService } from './phone-auth-service.js';
import { refreshTokenIndexes } from './sessions/refresh-token.js';
import { RefreshTokenRepository } from './sessions/refresh-token-repository.js';
import { sessionIndexes } from './sessions/session.js';
import { endedSessionsMirror } from './sessions/ended-sessions-mirror.js';
import { SessionActivity } from './sessions/session-activity.js';
import { SessionManager } from './sessions/session-manager.js';
import type { SessionEndListener } from './sessions/session-end-listener.js';
import type { WsTickets } from './sessions/ws-tickets.js';
import { createSessionService } from './session-service.js';
import { MfaGate } from './signin/mfa-gate.js';
import { Registration } from './signin/registration.js';
import { SessionStarter } from './signin/session-starter.js';
import { SpentSignatures, spentSignatureIndexes } from './signin/spent-signatures.js';
import { verifyAccessTokenOrThrow } from './signin/token-errors.js';
import { TokenPairIssuer } from './signin/token-pair.js';
import { WalletProof } from './signin/wallet-proof.js';
import { SignerRecovery } from './wallet/signer-recovery.js';
import { createSmsProvider } from './sms/select-sms-provider.js';
import { DpopValidator } from './tokens/dpop.js';
import type { TokenVerification } from './tokens/token-verification.js';

export interface IdentityDependencies {
  readonly settings: Pick<Config, 'service' | 'signIn' | 'sessions' | 'registration' | 'mfa' | 'phone' | 'sms'>;
  /** DATA_DIR: the MFA key made on first start, and the development SMS outbox. */
  readonly dataDir: string;
  /** Lockouts are off with the other abuse controls (RATE_LIMITS_ENABLED=false). */
  readonly lockoutsEnabled: boolean;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly logger: Logger;
  readonly verification: TokenVerification;
  readonly wsTickets: WsTickets;
  /** The per-number SMS limits; undefined when the abuse controls are off. */
  readonly smsNumberLimiter: RateLimiter | undefined;
  /** Told when a session ends (the app announces it to the areas that react: push). */
  readonly sessionEnds: SessionEndListener;
}

/** Every index of the identity area (created at start, and by the ensure-indexes command before a rollout). */
export const identityIndexes: IndexSpec[] = [
  ...accountIndexes,
  ...heldUsernameIndexes,
  ...sessionIndexes,
  ...refreshTokenIndexes,
  ...deviceIndexes,
  ...auditIndexes,
  ...trustedDeviceIndexes,
  ...phoneAccountIndexes,
  ...spentSignatureIndexes,
  ...retiredWalletIndexes,
];

export async function createIdentityArea(deps: IdentityDependencies) {
  const { settings, store, sharedState } = deps;
  await store.ensureIndexes(identityIndexes);
  const { tokens, revocations } = deps.verification;
  const serviceName = settings.service.name;
  const accounts = new AccountRepository(store);
  const heldUsernames = new HeldUsernames(store);
  const usernames = new Usernames(accounts, heldUsernames);
  const retiredWallets = new RetiredWallets(store);
  const audit = new AuditLog(store);
  const lockouts = new Lockouts(sharedState, deps.lockoutsEnabled);
  const sessions = new SessionManager(store, revocations, new SessionActivity(sharedState), { ttlMs: settings.sessions.ttlMs, idleTimeoutMs: settings.sessions.idleTimeoutMs });
  sessions.onEnded(deps.sessionEnds);
  const refreshTokens = new RefreshTokenRepository(store);
  const cookies: CookiePolicy = {
    secure: settings.sessions.cookieSecure,
    sameSite: settings.sessions.cookieSameSite,
    maxAgeSeconds: Math.floor(settings.sessions.ttlMs / 1000),
  };
  const dpop = new DpopValidator({ sharedState });
  const tokenPairs = new TokenPairIssuer(tokens, refreshTokens);
  const sessionStarter = new SessionStarter({ sessions, tokenPairs, cookies, audit, retiredWallets });
  const pendingSignIns = new PendingSignIns(sharedState, tokens);
  const trustedDevices = new TrustedDevices(store, settings.mfa.trustedDeviceTtlMs);
  const box = new SecretBox(await loadMfaMasterKey(settings.mfa.encryptionKey, deps.dataDir));
  const mfa = new Mfa({ store, box, accounts, lockouts, trustedDevices });
  const phoneAccounts = new PhoneAccounts(store);
  const devices = new DeviceRepository(store);
  const spentSignatures = new SpentSignatures(store);
  const signers = new SignerRecovery({ workers: settings.signIn.signatureWorkers, logger: deps.logger });
  const signIn = {
    accounts,
    audit,
    lockouts,
    dpop,
    tokens,
    sessions,
    refreshTokens,
    tokenPairs,
    sessionStarter,
    walletProof: new WalletProof({ serviceName, signers, spentSignatures, lockouts, audit }),
    usernames,
    registration: new Registration(accounts, usernames, retiredWallets, settings.registration.powDifficultyBits),
    mfaGate: new MfaGate({ trustedDevices, pendingSignIns, sessionStarter }),
  };

  const services = {
    auth: createAuthService({ ...signIn, wsTickets: deps.wsTickets, cookies }),
    session: createSessionService({ sessions, revocations, accounts, cookies, audit }),
    device: createDeviceService(devices),
    mfa: createMfaService({ serviceName, mfa, challenges: new MfaChallenges(sharedState), pendingSignIns, accounts, lockouts, dpop, sessionStarter, audit }),
    phoneAuth: createPhoneAuthService({
      ...signIn,
      serviceName,
      phoneHashSalt: settings.phone.hashSalt,
      phoneAccounts,
      codes: new SmsCodes(sharedState),
      verifications: new VerificationTokens(sharedState),
      challenges: new LoginChallenges(sharedState, serviceName),
      sms: createSmsProvider(settings.sms, deps.dataDir, deps.logger),
      numberLimiter: deps.smsNumberLimiter,
      mfa,
    }),
  };
  const authentication: RpcMiddleware = authenticate({
    verifyAccessToken: (token) => verifyAccessTokenOrThrow(tokens, token),
    sessions,
    revocations,
    accounts,
    verifyMfaToken: (token) => pendingSignIns.verifyToken(token),
    requestSignatures: new RequestSignatures(serviceName, spentSignatures, signers),
  });
  /** What the app wires into the pipeline and hands to sibling areas; `mirror` goes to the mirror keeper. */
  const accountData = new IdentityAccountData({ accounts, retiredWallets, heldUsernames, sessions, refreshTokens, devices, mfa, phoneAccounts });
  return {
    services,
    authentication,
    accounts,
    usernames,
    audit,
    lockouts,
    phoneAccounts,
    mfa,
    sessions,
    spentSignatures,
    /** Recovers EIP-191 signers on worker threads: a background task (started before serving, stopped after the servers drain). */
    signers,
    retiredWallets,
    /** A keyed hash under the service's secret (MFA_ENCRYPTION_KEY), for one-time codes of other areas. */
    secretMac: (text: string) => box.mac(text),
    /** Identity's records in account moves and deletions, and the walks' first step (`close`). */
    accountData,
    mirror: endedSessionsMirror(store, revocations),
  };
}

export type IdentityArea = Awaited<ReturnType<typeof createIdentityArea>>;
