/**
 * Version headers of the REST edge (spec, "Versioning"): every response says which version and
 * stability served it; responses on the deprecated unversioned paths also carry Deprecation,
 * Sunset (RFC 8594, an HTTP-date) and a Link to the successor version.
 */
import { CURRENT, LEGACY } from '../../platform/api/api-versions.js';
import type { ApiGeneration } from '../../platform/api/api-versions.js';

export function versionHeaders(
  generation: ApiGeneration,
  path: string,
  sunset: Date,
): [string, string][] {
  const headers: [string, string][] = [
    ['X-API-Version', generation.version],
    ['X-API-Stability', generation.stability],
  ];
  if (generation.deprecated) {
    const successor = CURRENT.prefix + path.slice(generation.prefix.length);
    headers.push(
      ['Deprecation', 'true'],
      ['Sunset', sunset.toUTCString()],
      ['Link', `<${successor}>; rel="successor-version"`],
    );
  }
  return headers;
}

/** The generation a path belongs to, for responses produced before routing (404, 413). */
export function generationOfPath(path: string): ApiGeneration {
  return path.startsWith(LEGACY.prefix + '/') && !path.startsWith(CURRENT.prefix + '/')
    ? LEGACY
    : CURRENT;
}
