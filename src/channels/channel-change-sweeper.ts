/**
 * Logs the changes of channel posts still marked unlogged (channel-change-log.ts), twice a
 * second on every api pod:
 *
 * - reaction count changes, which requests leave to it: a post's reactions since its last
 *   logged change become one `reactions` change carrying the latest counts, so a post read by
 *   thousands costs one log entry per sweep, not one per reaction;
 * - an edit, deletion or reaction whose process died before logging it, or whose publish failed.
 *
 * A mark is taken once it is `COALESCE_MS` old (an edit's own request logs it long before).
 * While Redis is away a sweep stops at its first failed publish, so an outage costs one log
 * entry per sweep. Pods sweeping the same post may both log it: a second entry carries the same current state,
 * which a client applies twice to the same result.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { RepeatingWork } from '../platform/logging/repeating-work.js';
import type { ChannelChangeLog } from './channel-change-log.js';
import type { ChannelPostChanges } from './channel-post-changes.js';

/** How long reaction changes of a post gather before they are logged as one. */
export const COALESCE_MS = 1000;
const SWEEP_INTERVAL_MS = 500;
const BATCH = 100;

export function channelChangeSweeper(
  log: ChannelChangeLog,
  changes: ChannelPostChanges,
  logger: Logger,
  outages: OutageLog,
): RepeatingWork {
  return new RepeatingWork({
    intervalMs: SWEEP_INTERVAL_MS,
    // Batch after batch until one is not full; a failed publish (Redis away) ends the sweep,
    // so an outage costs one log entry per sweep, not one per marked post.
    run: async () => {
      for (;;) {
        const marked = await log.unloggedBefore(new Date(Date.now() - COALESCE_MS), BATCH);
        for (const post of marked)
          if (!(await changes.logged(post, post.unloggedChange ?? 'reactions'))) return;
        if (marked.length < BATCH) return;
      }
    },
    logger,
    outages,
    failure: 'unlogged channel post changes not swept; retrying',
  });
}
