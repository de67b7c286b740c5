/**
 * Ends the sessions that reached `expires_at` and tells their audience, about once a second.
 * Every api pod runs one: ending is one conditional update, so of pods sweeping the same
 * session one ends it and announces the end. A failed sweep is logged (an outage once per
 * interval) and the next one tries again.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { RepeatingWork } from '../platform/logging/repeating-work.js';
import type { LocationSharing } from './location-sharing.js';

const SWEEP_INTERVAL_MS = 1000;
const BATCH = 100;

export function expirySweeper(
  sharing: LocationSharing,
  logger: Logger,
  outages: OutageLog,
): RepeatingWork {
  return new RepeatingWork({
    intervalMs: SWEEP_INTERVAL_MS,
    // Batch after batch until one is not full.
    run: async () => {
      while ((await sharing.expireDue(BATCH)) === BATCH);
    },
    logger,
    outages,
    failure: 'expired location sessions not swept; retrying',
  });
}
