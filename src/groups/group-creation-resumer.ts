/**
 * Finishes group creations cut off by a crash (group-creation.ts): every api pod runs it at start
 * and then whenever the earliest unfinished creation is due for its check (RESUME_AFTER_MS after
 * its start), at most every RESUME_INTERVAL_MS. A creation started later, here or on another pod,
 * is found by the next run, SAFETY_POLL_MS + RESUME_AFTER_MS after its start at worst (a creation
 * normally finishes within milliseconds; only one cut off is left for this). Safe with several
 * pods at once: each creation is claimed by a conditional write before it is resumed.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { RepeatingWork } from '../platform/logging/repeating-work.js';
import type { GroupCreation } from './group-creation.js';
import { RESUME_AFTER_MS } from './group-creation.js';

const RESUME_INTERVAL_MS = RESUME_AFTER_MS / 2;
/** The longest sleep: how late a creation cut off after the last run is looked at. */
const SAFETY_POLL_MS = 30_000;

export function groupCreationResumer(creation: GroupCreation, logger: Logger, outages: OutageLog) {
  const work = new RepeatingWork({
    name: 'group-creation-resume',
    minIntervalMs: RESUME_INTERVAL_MS,
    safetyPollMs: SAFETY_POLL_MS,
    run: async () => {
      const resumed = await creation.resumeDue();
      if (resumed > 0) logger.info({ resumed }, 'group creations cut off by a crash were finished');
      return creation.nextCheckAt();
    },
    logger,
    outages,
    failure: 'group creations cut off by a crash not resumed; retrying',
  });
  return {
    start: () => {
      work.start();
      void work.runOnce();
    },
    stop: () => work.stop(),
  };
}
