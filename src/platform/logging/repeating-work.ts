/**
 * Work a process repeats on a timer (sweepers, keepers): never two runs at once, never keeping
 * the process alive. A run that fails is retried by the next one; a dependency outage is
 * reported through the OutageLog (one line per interval), anything else is logged as a warning
 * with `failure` as its message.
 */
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import type { Logger } from './logger.js';
import type { OutageLog } from './outage-log.js';

export interface RepeatingWorkOptions {
  readonly intervalMs: number;
  readonly run: () => Promise<void>;
  readonly logger: Logger;
  readonly outages: OutageLog;
  /** The warning logged when a run fails for another reason than an outage. */
  readonly failure: string;
}

export class RepeatingWork {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(private readonly options: RepeatingWorkOptions) {}

  /** Runs every interval from now on (the first run one interval from now). */
  start(): void {
    this.timer = setInterval(() => void this.runOnce(), this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  /** One run now, or the one in progress; never rejects. */
  runOnce(): Promise<void> {
    const { run, outages, logger, failure } = this.options;
    this.running ??= run()
      .catch((error: unknown) => {
        if (error instanceof DependencyUnavailableError) outages.report(error);
        else logger.warn({ err: error }, failure);
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
