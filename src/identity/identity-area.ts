/**
 * The identity area of an api process: how a wallet proves who it is and what that opens —
 * sign-in by wallet signature with its steps, sessions and their refresh families, tokens
 * (JWT, DPoP), devices, the audit trail, the lockouts and the authentication middleware. The
 * account records themselves belong to the accounts area; the second factor (mfa) and phone
 * sign-in are areas above this one that reuse its sign-in parts (`signIn`). Each RPC flow
 * receives the few parts it uses (its `…Dependencies` type); this factory is the one place
 * inside the area that builds them and connects them. The token service, the revocations and
 * the /ws tickets are shared with the ws tier, so the app builds them once and passes them in.
 * The ended-session marks in shared state are a mirror of the store: the area hands the app
 * their copy from the store (`mirror`) for the mirror keeper.
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { HeldUsernames } from '../accounts/held-usernames.js';
import type { RetiredWallets } from '../accounts/retired-wallets.js';
import type { Suspensions } from '../accounts/suspensions.js';
import type { Usernames } from '../accounts/usernames.js';
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { RpcMiddleware } from '../platform/rpc/rpc-pipeline.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { AuditLog, auditIndexes } from './audit/audit-log.js';
import { authenticate } from './auth/authenticate.js';
import type { CookiePolicy } from './auth/cookies.js';
import { RequestSignatures } from './auth/request-signatures.js';
import { createAuthService } from './auth-service.js';
import { createDeviceService } from './device-service.js';
import { deviceIndexes } from './devices/device.js';
import { DeviceRepository } from './devices/device-repository.js';
import { IdentityAccountData } from './identity-account-data.js';
import { Lockouts } from './lockout/lockouts.js';
import { createSessionService } from './session-service.js';
import { endedSessionsMirror } from './sessions/ended-sessions-mirror.js';
import { refreshTokenIndexes } from './sessions/refresh-token.js';
import { RefreshTokenRepository } from './sessions/refresh-token-repository.js';
import { sessionIndexes } from './sessions/session.js';
import { SessionActivity } from './sessions/session-activity.js';
import { SessionManager } from './sessions/session-manager.js';
import type { SessionEndListener } from './sessions/session-end-listener.js';
import type { WsTickets } from './sessions/ws-tickets.js';
import { MfaGate } from './signin/mfa-gate.js';
import { PendingSignIns } from './signin/pending-sign-ins.js';
import { Registration } from './signin/registration.js';
import { SessionStarter } from './signin/session-starter.js';
import type { SignInParts } from './signin/sign-in-parts.js';
import { SpentSignatures, spentSignatureIndexes } from './signin/spent-signatures.js';
import { verifyAccessTokenOrThrow } from './signin/token-errors.js';
import { TokenPairIssuer } from './signin/token-pair.js';
import { TrustedDevices, trustedDeviceIndexes } from './signin/trusted-devices.js';
import { WalletProof } from './signin/wallet-proof.js';
import { DpopValidator } from './tokens/dpop.js';
import type { TokenVerification } from './tokens/token-verification.js';
import type { ContractSignatureVerifier } from './wallet/contract-signature-verifier.js';
import { SignerRecovery } from './wallet/signer-recovery.js';
import { WalletSignatures } from './wallet/wallet-signatures.js';

export interface IdentityDependencies {
  readonly settings: Pick<
    Config,
    'service' | 'signIn' | 'sessions' | 'registration' | 'mfa' | 'wallets'
  >;
  /**
   * The chains' verifier of contract-wallet signatures (identity/wallet/contract-wallets.ts),
   * built once by the app from ETH_RPC_URLS; undefined when none is configured.
   */
  readonly contracts: ContractSignatureVerifier | undefined;
  /** Lockouts are off with the other abuse controls (RATE_LIMITS_ENABLED=false). */
  readonly lockoutsEnabled: boolean;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly logger: Logger;
  readonly verification: TokenVerification;
  readonly wsTickets: WsTickets;
  /** The accounts area's records: who exists, held usernames, retired wallets. */
  readonly accounts: {
    readonly accounts: AccountRepository;
    readonly usernames: Usernames;
    readonly retiredWallets: RetiredWallets;
    readonly heldUsernames: HeldUsernames;
    readonly suspensions: Suspensions;
  };
  /** Told when a session ends (the app announces it to the areas that react: push). */
  readonly sessionEnds: SessionEndListener;
}

/** Every index of the identity area (created at start, and by the ensure-indexes command before a rollout). */
export const identityIndexes: IndexSpec[] = [
  ...sessionIndexes,
  ...refreshTokenIndexes,
  ...deviceIndexes,
  ...auditIndexes,
  ...trustedDeviceIndexes,
  ...spentSignatureIndexes,
];

export async function createIdentityArea(deps: IdentityDependencies) {
  const { settings, store, sharedState } = deps;
  await store.ensureIndexes(identityIndexes);
  const { tokens, revocations } = deps.verification;
  const { accounts, usernames, retiredWallets, heldUsernames } = deps.accounts;
  const serviceName = settings.service.name;
  const audit = new AuditLog(store);
  const lockouts = new Lockouts(sharedState, deps.lockoutsEnabled);
  const sessions = new SessionManager(store, revocations, new SessionActivity(sharedState), {
    ttlMs: settings.sessions.ttlMs,
    idleTimeoutMs: settings.sessions.idleTimeoutMs,
  });
  sessions.onEnded(deps.sessionEnds);
  const refreshTokens = new RefreshTokenRepository(store);
  const cookies: CookiePolicy = {
    secure: settings.sessions.cookieSecure,
    sameSite: settings.sessions.cookieSameSite,
    maxAgeSeconds: Math.floor(settings.sessions.ttlMs / 1000),
  };
  const dpop = new DpopValidator({ sharedState });
  const tokenPairs = new TokenPairIssuer(tokens, refreshTokens);
  const sessionStarter = new SessionStarter({
    sessions,
    tokenPairs,
    cookies,
    audit,
    retiredWallets,
    suspensions: deps.accounts.suspensions,
  });
  const pendingSignIns = new PendingSignIns(sharedState, tokens);
  const trustedDevices = new TrustedDevices(store, settings.mfa.trustedDeviceTtlMs);
  const devices = new DeviceRepository(store);
  const spentSignatures = new SpentSignatures(store);
  const signers = new SignerRecovery({
    workers: settings.signIn.signatureWorkers,
    logger: deps.logger,
  });
  // Every wallet signature of the area: EOAs on the pool first, then the chain (contract wallets).
  const signatures = new WalletSignatures(
    (message, signature) => signers.recover(message, signature),
    deps.contracts,
  );
  const { wallets } = settings;
  const siwe = {
    domains: wallets.siweDomains,
    chainIds: new Set([wallets.defaultChainId, ...wallets.rpcUrls.keys()]),
  };
  /** The parts of a sign-in flow: wallet sign-in here, and the phone and second-factor areas' flows. */
  const signIn: SignInParts = {
    accounts,
    audit,
    lockouts,
    dpop,
    tokens,
    sessions,
    refreshTokens,
    tokenPairs,
    sessionStarter,
    pendingSignIns,
    walletProof: new WalletProof({
      serviceName,
      signatures,
      siwe,
      spentSignatures,
      lockouts,
      audit,
    }),
    usernames,
    registration: new Registration(
      accounts,
      usernames,
      retiredWallets,
      settings.registration.powDifficultyBits,
    ),
    mfaGate: new MfaGate({ trustedDevices, pendingSignIns, sessionStarter }),
  };

  const services = {
    auth: createAuthService({ ...signIn, wsTickets: deps.wsTickets, cookies }),
    session: createSessionService({ sessions, revocations, accounts, cookies, audit }),
    device: createDeviceService(devices),
  };
  const authentication: RpcMiddleware = authenticate({
    verifyAccessToken: (token) => verifyAccessTokenOrThrow(tokens, token),
    sessions,
    revocations,
    accounts,
    verifyMfaToken: (token) => pendingSignIns.verifyToken(token),
    requestSignatures: new RequestSignatures(serviceName, spentSignatures, signatures),
  });
  return {
    services,
    authentication,
    signIn,
    /** Devices a second factor trusts for a while; the mfa area removes them with the second factor. */
    trustedDevices,
    audit,
    lockouts,
    sessions,
    spentSignatures,
    /** Recovers EIP-191 signers on worker threads: a background task (started before serving, stopped after the servers drain). */
    signers,
    /** Whether a wallet signed a message, EOA or contract wallet: recovery's decisions use it. */
    signatures,
    /** Identity's and the accounts area's records in account moves and deletions, and the walks' first step (`close`). */
    accountData: new IdentityAccountData({
      accounts,
      retiredWallets,
      heldUsernames,
      sessions,
      refreshTokens,
      devices,
    }),
    mirror: endedSessionsMirror(store, revocations),
  };
}

export type IdentityArea = Awaited<ReturnType<typeof createIdentityArea>>;
