/**
 * Ends the sessions that reached `expires_at` and tells their audience, about once a second.
 * Every api pod runs one: ending is one conditional update, so of pods sweeping the same
 * session one ends it and announces the end. A store outage is reported once per interval
 * (OutageLog) and the next sweep tries again.
 */
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { LocationSharing } from './location-sharing.js';

const SWEEP_INTERVAL_MS = 1000;
const BATCH = 100;

export class ExpirySweeper {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;

  constructor(
    private readonly sharing: LocationSharing,
    private readonly logger: Logger,
    private readonly outages: OutageLog,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sweepOnce(), SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** One sweep, never two at once: batch after batch until one is not full. */
  sweepOnce(): Promise<void> {
    this.sweeping ??= this.expireAll()
      .catch((error: unknown) => {
        if (error instanceof DependencyUnavailableError) this.outages.report(error);
        else this.logger.warn({ err: error }, 'expired location sessions not swept; retrying');
      })
      .finally(() => {
        this.sweeping = undefined;
      });
    return this.sweeping;
  }

  private async expireAll(): Promise<void> {
    while ((await this.sharing.expireDue(BATCH)) === BATCH);
  }
}
