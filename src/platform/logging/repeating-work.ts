/**
 * Background work of the areas (sweepers, keepers), done when due (scheduling/due-work.ts): a
 * dependency outage is reported through the OutageLog (one line per interval), any other failure
 * is logged as a warning with `failure` as its message; either way the run is retried.
 */
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import { DueWork, type DueWorkOptions } from '../scheduling/due-work.js';
import type { Logger } from './logger.js';
import type { OutageLog } from './outage-log.js';

export interface RepeatingWorkOptions extends Omit<DueWorkOptions, 'onFailure'> {
  readonly logger: Logger;
  readonly outages: OutageLog;
  /** The warning logged when a run fails for another reason than an outage. */
  readonly failure: string;
}

export class RepeatingWork extends DueWork {
  constructor({ logger, outages, failure, ...options }: RepeatingWorkOptions) {
    super({
      ...options,
      onFailure: (error) => {
        if (error instanceof DependencyUnavailableError) outages.report(error);
        else logger.warn({ err: error }, failure);
      },
    });
  }
}
