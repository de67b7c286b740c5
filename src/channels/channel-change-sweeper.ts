/**
 * Logs the changes of channel posts still marked unlogged (channel-change-log.ts), on every api
 * pod, when a mark is due (COALESCE_MS after it was set), at most twice a second:
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
 *
 * When it sleeps: after a sweep it waits for the earliest mark left (a mark it could not log yet,
 * or one set meanwhile); a mark set by this process wakes it (ChannelPosts.onMarkedUnlogged, told by
 * every change that sets one). A mark set by another pod is that pod's sweeper's; one
 * whose pod died is found by the safety poll, SAFETY_POLL_MS + COALESCE_MS late at worst.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { RepeatingWork } from '../platform/logging/repeating-work.js';
import type { ChannelChangeLog } from './channel-change-log.js';
import type { ChannelPostChanges } from './channel-post-changes.js';
import type { ChannelPosts } from './channel-posts.js';

/** How long reaction changes of a post gather before they are logged as one. */
export const COALESCE_MS = 1000;
const SWEEP_INTERVAL_MS = 500;
/** The longest sleep: how late a mark that another pod set and left (it died) is logged. */
const SAFETY_POLL_MS = 30_000;
const BATCH = 100;
/** Later than any mark, to ask for the earliest one. */
const END_OF_TIME = new Date(8.64e15);

export function channelChangeSweeper(
  log: ChannelChangeLog,
  changes: ChannelPostChanges,
  posts: ChannelPosts,
  logger: Logger,
  outages: OutageLog,
): RepeatingWork {
  const work = new RepeatingWork({
    name: 'channel-change-sweep',
    minIntervalMs: SWEEP_INTERVAL_MS,
    safetyPollMs: SAFETY_POLL_MS,
    run: async () => {
      await logDueMarks(log, changes);
      const [earliest] = await log.unloggedBefore(END_OF_TIME, 1);
      return earliest?.unloggedSince && earliest.unloggedSince.getTime() + COALESCE_MS;
    },
    logger,
    outages,
    failure: 'unlogged channel post changes not swept; retrying',
  });
  posts.onMarkedUnlogged((at) => work.dueBy(at.getTime() + COALESCE_MS));
  return work;
}

/**
 * Batch after batch until one is not full; a failed publish (Redis away) ends the sweep, so an
 * outage costs one log entry per sweep, not one per marked post (the mark left is due at once:
 * the next sweep comes SWEEP_INTERVAL_MS later).
 */
async function logDueMarks(log: ChannelChangeLog, changes: ChannelPostChanges): Promise<void> {
  for (;;) {
    const marked = await log.unloggedBefore(new Date(Date.now() - COALESCE_MS), BATCH);
    for (const post of marked)
      if (!(await changes.logged(post, post.unloggedChange ?? 'reactions'))) return;
    if (marked.length < BATCH) return;
  }
}
