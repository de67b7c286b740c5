/**
 * Keeps the mirrors in shared state complete (see mirror-completeness.ts). Runs in every
 * process with a store: at start, and with Redis every couple of seconds after, it checks the
 * completeness markers, one per shard bucket; when any is missing (first start, Redis or one
 * cluster node restarted empty, a flush) it copies every mirror from the store and then sets the
 * missing markers. No process restart is needed after a Redis loss. Several api pods may rebuild
 * at once: the copies are idempotent, and only a rebuild that no flush interrupted sets a
 * bucket's marker. In-process shared state (no REDIS_URL) is lost only with the process, so
 * after the check at start nothing wakes it (`keepChecking: false`), sparing an idle process.
 */
import { randomUUID } from 'node:crypto';
import type { Logger } from '../logging/logger.js';
import type { OutageLog } from '../logging/outage-log.js';
import { RepeatingWork } from '../logging/repeating-work.js';
import {
  completeRebuild,
  mirrorsCompleteKey,
  mirrorsRebuildingKey,
} from './mirror-completeness.js';
import { ALL_SHARD_BUCKETS } from './shard-buckets.js';
import type { SharedState } from './shared-state.js';

/** One mirror: copies every record it mirrors from the store; answers how many. */
export interface MirrorSource {
  readonly name: string;
  restore(): Promise<number>;
}

/** How often the marker is checked: the longest a Redis loss goes unrepaired, plus the rebuild. */
const CHECK_INTERVAL_MS = 2000;
/** A rebuild that has not finished by then (a crashed pod) no longer holds the marker back. */
const REBUILD_TTL_MS = 10 * 60_000;

export class MirrorKeeper {
  /** One check at a time; failures are logged, the next check tries again. */
  private readonly checks: RepeatingWork;

  constructor(
    private readonly state: SharedState,
    private readonly sources: readonly MirrorSource[],
    private readonly logger: Logger,
    outages: OutageLog,
    /** Whether to keep checking: shared state that can lose data without this process (Redis). */
    options: { keepChecking: boolean },
  ) {
    this.checks = new RepeatingWork({
      name: 'shared-state-mirror-check',
      minIntervalMs: CHECK_INTERVAL_MS,
      // A loss is not announced: with Redis every check is a safety poll. Without, a check
      // follows the start's (in case it failed; a failed one is retried), then none.
      safetyPollMs: options.keepChecking ? CHECK_INTERVAL_MS : Infinity,
      run: () => this.rebuildIfIncomplete(),
      logger,
      outages,
      failure: 'shared-state mirrors not rebuilt; retrying',
    });
  }

  /** Makes the mirrors complete once (if shared state answers), then keeps checking. */
  async start(): Promise<void> {
    await this.checks.runOnce();
    this.checks.start();
  }

  stop(): Promise<void> {
    return this.checks.stop();
  }

  private async rebuildIfIncomplete(): Promise<void> {
    const complete = await Promise.all(
      ALL_SHARD_BUCKETS.map((bucket) => this.state.exists(mirrorsCompleteKey(bucket))),
    );
    const incomplete = ALL_SHARD_BUCKETS.filter((bucket) => !complete[bucket]);
    if (incomplete.length === 0) return;
    const rebuildId = randomUUID();
    await Promise.all(
      incomplete.map((bucket) =>
        this.state.set(mirrorsRebuildingKey(bucket), rebuildId, { ttlMs: REBUILD_TTL_MS }),
      ),
    );
    const copied: Record<string, number> = {};
    for (const source of this.sources) copied[source.name] = await source.restore();
    const outcomes = await Promise.all(
      incomplete.map((bucket) =>
        this.state.run(
          completeRebuild,
          [mirrorsRebuildingKey(bucket), mirrorsCompleteKey(bucket)],
          [rebuildId],
        ),
      ),
    );
    const completed = outcomes.filter((outcome) => outcome === 1).length;
    this.logger.info(
      { copied, buckets: incomplete.length, completed },
      completed === incomplete.length
        ? 'shared-state mirrors rebuilt from the store'
        : 'shared-state mirrors copied; another rebuild or a flush came in between',
    );
  }
}
