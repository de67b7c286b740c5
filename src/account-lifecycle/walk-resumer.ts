/**
 * Finishes the account moves and deletions that a process left unfinished (it died, or a
 * dependency failed mid-way): at start and then every RESUME_INTERVAL_MS, every unfinished walk
 * runs again from the owner it was in.
 */
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { AccountWalks } from './account-walk.js';
import type { AccountWalkMetrics } from './account-walk-metrics.js';
import type { AccountWalker } from './account-walker.js';

export const RESUME_INTERVAL_MS = 30_000;

export class WalkResumer {
  private timer: NodeJS.Timeout | undefined;
  private round: Promise<void> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly walks: AccountWalks,
    private readonly walker: AccountWalker,
    private readonly metrics: AccountWalkMetrics,
    private readonly logger: Logger,
    private readonly outages: OutageLog,
  ) {}

  start(): void {
    this.schedule();
    this.timer = setInterval(() => this.schedule(), RESUME_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.round;
    await this.walker.idle();
  }

  private schedule(): void {
    this.round = this.round
      .then(() => this.resumeAll())
      .catch((error: unknown) => {
        if (error instanceof DependencyUnavailableError) this.outages.report(error);
        else this.logger.error({ err: error }, 'an account walk failed; retried at the next round');
      });
  }

  private async resumeAll(): Promise<void> {
    if (this.stopped) return;
    const unfinished = await this.walks.unfinished();
    this.metrics.unfinished.set(unfinished.length);
    for (const walk of unfinished) {
      if (this.stopped) return;
      this.logger.info(
        { walk: walk.kind, ownersDone: walk.ownersDone },
        'resuming an unfinished account walk',
      );
      await this.walker.resume(walk);
    }
  }
}
