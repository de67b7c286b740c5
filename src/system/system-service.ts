import { reportErrors } from './frontend-errors.js';
import type { FrontendErrorCounter } from './frontend-errors.js';
import { getVersion } from './version.js';

/** SystemService: version information and the frontend error intake. */
export function createSystemService(frontendErrors: FrontendErrorCounter) {
  return { getVersion, reportErrors: reportErrors(frontendErrors) };
}
