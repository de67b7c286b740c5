/**
 * Ends the sessions that reached `expires_at` and tells their audience, when the earliest one is
 * due, at most once a second. Every api pod runs one: ending is one conditional update, so of
 * pods sweeping the same session one ends it and announces the end. A failed sweep is logged (an
 * outage once per interval) and tried again a second later.
 *
 * When it sleeps: after a sweep it waits for the earliest active session's expiry; a session this
 * process starts wakes it for its own (LocationSharing.onStarted). One another pod starts is that
 * pod's sweeper's; if that pod dies, this one finds it at its next sweep, SAFETY_POLL_MS late at
 * worst. Clients never see a session past its expiry meanwhile: reading or updating a due
 * session ends it (location-sharing.ts).
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { RepeatingWork } from '../platform/logging/repeating-work.js';
import type { LocationSharing } from './location-sharing.js';

const SWEEP_INTERVAL_MS = 1000;
/** The longest sleep: how late a session whose pod died is ended. */
const SAFETY_POLL_MS = 30_000;
const BATCH = 100;

export function expirySweeper(
  sharing: LocationSharing,
  logger: Logger,
  outages: OutageLog,
): RepeatingWork {
  const work = new RepeatingWork({
    name: 'location-expiry-sweep',
    minIntervalMs: SWEEP_INTERVAL_MS,
    safetyPollMs: SAFETY_POLL_MS,
    // Batch after batch until one is not full.
    run: async () => {
      while ((await sharing.expireDue(BATCH)) === BATCH);
      return sharing.nextExpiry();
    },
    logger,
    outages,
    failure: 'expired location sessions not swept; retrying',
  });
  sharing.onStarted((expiresAt) => work.dueBy(expiresAt.getTime()));
  return work;
}
