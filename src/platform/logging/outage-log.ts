/**
 * Reports dependency outages to the log once per interval per dependency, with how many
 * operations failed since the last line, instead of one line (and stack trace) per request:
 * during an outage every request fails the same way, and a line per request buries the logs.
 */
import type { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import type { Logger } from './logger.js';

const REPORT_INTERVAL_MS = 10_000;

export class OutageLog {
  private readonly pending = new Map<string, { failures: number; reportedAt: number }>();

  constructor(
    private readonly logger: Pick<Logger, 'warn'>,
    private readonly intervalMs = REPORT_INTERVAL_MS,
  ) {}

  report(error: DependencyUnavailableError): void {
    const now = Date.now();
    const entry = this.pending.get(error.dependency) ?? { failures: 0, reportedAt: 0 };
    entry.failures += 1;
    this.pending.set(error.dependency, entry);
    if (now - entry.reportedAt < this.intervalMs) return;
    const cause = error.cause instanceof Error ? error.cause.message : error.message;
    this.logger.warn(
      {
        dependency: error.dependency,
        failures: entry.failures,
        cause,
        intervalSeconds: this.intervalMs / 1000,
      },
      `${error.dependency} unavailable: requests answer 503 until it is back`,
    );
    entry.failures = 0;
    entry.reportedAt = now;
  }
}
