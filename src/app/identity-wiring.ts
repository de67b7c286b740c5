/**
 * The identity area: accounts, sessions, sign-in, MFA and phone numbers. Built first: every
 * other area that knows users takes parts of it (the account repository, phone bindings,
 * sessions, retired wallets, the signer pool, the secret MAC).
 */
import type { AreaEvents } from '../events/area-events.js';
import { createIdentityArea } from '../identity/identity-area.js';
import type { IdentityArea } from '../identity/identity-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';

export function buildIdentityArea(ports: ApiAreaPorts, areaEvents: AreaEvents): Promise<IdentityArea> {
  const { config } = ports;
  return createIdentityArea({
    settings: { service: config.service, signIn: config.signIn, sessions: config.sessions, registration: config.registration, mfa: config.mfa, phone: config.phone, sms: config.sms },
    dataDir: config.store.dataDir,
    lockoutsEnabled: config.limits.enabled,
    store: ports.store,
    sharedState: ports.sharedState,
    logger: ports.logger,
    verification: ports.verification,
    wsTickets: ports.wsTickets,
    smsNumberLimiter: ports.smsNumberLimiter,
    // Push reacts to a session's end, but needs identity's sessions itself: an event, not a part.
    sessionEnds: { sessionEnded: (sessionId) => areaEvents.sessionEnded.announce(sessionId) },
  });
}
