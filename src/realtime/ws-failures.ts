/** How the /ws endpoint reports a failure that no client frame answers. */
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';

export type LogFailure = (error: unknown, message: string, address: string) => void;

/** Logs a failure: an outage once per interval, anything else with its stack. */
export function failureLog(outages: OutageLog, logger: Logger): LogFailure {
  return (error, message, address) => {
    if (error instanceof DependencyUnavailableError) outages.report(error);
    else logger.error({ err: error, address }, message);
  };
}
