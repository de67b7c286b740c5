/**
 * Who users are and how they prove it, built first: every other area that knows users takes
 * parts of these. The accounts area (who exists) under identity (wallet sign-in, sessions,
 * tokens), then the two ways in that build on identity's sign-in parts: the second factor
 * (mfa) and phone sign-in, which also uses the second factor.
 */
import { createAccountsArea } from '../accounts/accounts-area.js';
import type { AccountsArea } from '../accounts/accounts-area.js';
import type { AreaEvents } from '../events/area-events.js';
import { createIdentityArea } from '../identity/identity-area.js';
import type { IdentityArea } from '../identity/identity-area.js';
import { createMfaArea } from '../mfa/mfa-area.js';
import type { MfaArea } from '../mfa/mfa-area.js';
import { createPhoneArea } from '../phone/phone-area.js';
import type { PhoneArea } from '../phone/phone-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';

export interface IdentityAreas {
  readonly accounts: AccountsArea;
  readonly identity: IdentityArea;
  readonly mfa: MfaArea;
  readonly phone: PhoneArea;
}

export async function buildIdentityAreas(
  ports: ApiAreaPorts,
  areaEvents: AreaEvents,
): Promise<IdentityAreas> {
  const { config, store, sharedState, logger } = ports;
  const accounts = await createAccountsArea({ store });
  const identity = await createIdentityArea({
    settings: config,
    lockoutsEnabled: config.limits.enabled,
    store,
    sharedState,
    logger,
    verification: ports.verification,
    wsTickets: ports.wsTickets,
    accounts,
    // Push reacts to a session's end, but needs identity's sessions itself: an event, not a part.
    sessionEnds: { sessionEnded: (sessionId) => areaEvents.sessionEnded.announce(sessionId) },
  });
  const { signIn, trustedDevices } = identity;
  const dataDir = config.store.dataDir;
  const mfa = await createMfaArea({
    settings: config,
    dataDir,
    store,
    sharedState,
    accounts: accounts.accounts,
    signIn,
    trustedDevices,
  });
  const phone = await createPhoneArea({
    settings: config,
    dataDir,
    store,
    sharedState,
    logger,
    signIn,
    mfa: mfa.mfa,
    smsNumberLimiter: ports.smsNumberLimiter,
  });
  return { accounts, identity, mfa, phone };
}
