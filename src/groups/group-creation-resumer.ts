/**
 * Finishes group creations cut off by a crash (group-creation.ts): every api pod runs it once at
 * start and then every RESUME_INTERVAL_MS. Safe with several pods at once: each creation is
 * claimed by a conditional write before it is resumed.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { RepeatingWork } from '../platform/logging/repeating-work.js';
import type { GroupCreation } from './group-creation.js';
import { RESUME_AFTER_MS } from './group-creation.js';

const RESUME_INTERVAL_MS = RESUME_AFTER_MS / 2;

export function groupCreationResumer(creation: GroupCreation, logger: Logger, outages: OutageLog) {
  const work = new RepeatingWork({
    intervalMs: RESUME_INTERVAL_MS,
    run: async () => {
      const resumed = await creation.resumeDue();
      if (resumed > 0) logger.info({ resumed }, 'group creations cut off by a crash were finished');
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
