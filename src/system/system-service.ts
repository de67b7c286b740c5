import type { Metrics } from '../platform/metrics/metrics.js';
import { reportErrors } from './frontend-errors.js';
import { getVersion } from './version.js';

/** SystemService: version information and the frontend error intake. */
export function createSystemService(metrics: Metrics) {
  return { getVersion, reportErrors: reportErrors(metrics) };
}
