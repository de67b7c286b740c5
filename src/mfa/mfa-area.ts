/**
 * The second-factor area: TOTP secrets sealed under the service's MFA key, backup codes, the
 * enrolment and step-up challenges, and the MFA step of a sign-in that identity's wallet proof
 * (or phone sign-in) left pending. It builds on identity's sign-in parts (pending sign-ins,
 * trusted devices, the session starter) and never the other way round: identity only asks,
 * through its MFA gate, whether a sign-in must wait for this area.
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { SignInParts } from '../identity/signin/sign-in-parts.js';
import type { TrustedDevices } from '../identity/signin/trusted-devices.js';
import type { Config } from '../platform/config/settings.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { Mfa } from './mfa.js';
import { MfaAccountData } from './mfa-account-data.js';
import { MfaChallenges } from './mfa-challenges.js';
import { createMfaService } from './mfa-service.js';
import { SecretBox, loadMfaMasterKey } from './secret-box.js';

export interface MfaAreaDependencies {
  readonly settings: Pick<Config, 'service' | 'mfa'>;
  /** DATA_DIR: where the MFA key is made on first start when MFA_ENCRYPTION_KEY is unset. */
  readonly dataDir: string;
  readonly store: DocumentStore;
  readonly sharedState: SharedState;
  readonly accounts: AccountRepository;
  readonly signIn: SignInParts;
  readonly trustedDevices: TrustedDevices;
}

export async function createMfaArea(deps: MfaAreaDependencies) {
  const { accounts } = deps;
  const { pendingSignIns, lockouts, dpop, sessionStarter, audit } = deps.signIn;
  const box = new SecretBox(await loadMfaMasterKey(deps.settings.mfa.encryptionKey, deps.dataDir));
  const mfa = new Mfa({
    store: deps.store,
    box,
    accounts,
    lockouts,
    trustedDevices: deps.trustedDevices,
  });
  return {
    service: createMfaService({
      serviceName: deps.settings.service.name,
      mfa,
      challenges: new MfaChallenges(deps.sharedState),
      pendingSignIns,
      accounts,
      lockouts,
      dpop,
      sessionStarter,
      audit,
    }),
    mfa,
    /** A keyed hash under the service's secret (MFA_ENCRYPTION_KEY), for one-time codes of other areas. */
    secretMac: (text: string) => box.mac(text),
    accountData: new MfaAccountData(mfa),
  };
}

export type MfaArea = Awaited<ReturnType<typeof createMfaArea>>;
