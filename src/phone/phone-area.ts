/**
 * The phone area: sign-in and registration by phone number with SMS codes (the spec's phone
 * flow), the hashed number bindings, and the SMS providers. It reuses identity's sign-in parts
 * (sessions, tokens, lockouts, the MFA gate) and the second factor of the mfa area; other areas
 * read the bindings (`phoneAccounts`: contact discovery, key registrations).
 */
import type { SignInParts } from '../identity/signin/sign-in-parts.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { Mfa } from '../mfa/mfa.js';
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { LoginChallenges } from './login-challenges.js';
import { PhoneAccountData } from './phone-account-data.js';
import { PhoneAccounts, phoneAccountIndexes } from './phone-accounts.js';
import { createPhoneAuthService } from './phone-auth-service.js';
import { createSmsProvider } from './sms/select-sms-provider.js';
import { SmsCodes } from './sms-codes.js';
import { VerificationTokens } from './verification-tokens.js';

export interface PhoneAreaDependencies {
  readonly settings: Pick<Config, 'service' | 'phone' | 'sms'>;
  /** DATA_DIR: the development SMS outbox. */
  readonly dataDir: string;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly logger: Logger;
  readonly signIn: SignInParts;
  readonly mfa: Mfa;
  /** The per-number SMS limits; undefined when the abuse controls are off. */
  readonly smsNumberLimiter: RateLimiter | undefined;
}

/** Every index of the phone area (created at start, and by the ensure-indexes command before a rollout). */
export const phoneIndexes: IndexSpec[] = [...phoneAccountIndexes];

export async function createPhoneArea(deps: PhoneAreaDependencies) {
  const { settings, sharedState } = deps;
  await deps.store.ensureIndexes(phoneIndexes);
  const serviceName = settings.service.name;
  const phoneAccounts = new PhoneAccounts(deps.store);
  return {
    service: createPhoneAuthService({
      ...deps.signIn,
      serviceName,
      phoneHashSalt: settings.phone.hashSalt,
      phoneAccounts,
      codes: new SmsCodes(sharedState),
      verifications: new VerificationTokens(sharedState),
      challenges: new LoginChallenges(sharedState, serviceName),
      sms: createSmsProvider(settings.sms, deps.dataDir, deps.logger),
      numberLimiter: deps.smsNumberLimiter,
      mfa: deps.mfa,
    }),
    phoneAccounts,
    accountData: new PhoneAccountData(phoneAccounts),
  };
}

export type PhoneArea = Awaited<ReturnType<typeof createPhoneArea>>;
