/**
 * The API generations this deployment serves (spec, "Versioning"). The path prefix is the
 * version; the unversioned `/api/` generation is an alias of v1 that is deprecated but served.
 */
export type Stability =
  'development' | 'alpha' | 'beta' | 'stable' | 'deprecated' | 'sunset' | 'retired';

export interface ApiGeneration {
  /** Path prefix, without a trailing slash. */
  readonly prefix: string;
  /** The version reported in X-API-Version and by GET /api/version. */
  readonly version: string;
  readonly stability: Stability;
  readonly deprecated: boolean;
}

/** The version every proto route is written for (`/api/v1/...`). */
export const CURRENT: ApiGeneration = {
  prefix: '/api/v1',
  version: 'v1',
  stability: 'stable',
  deprecated: false,
};

/** The unversioned generation: same behaviour, deprecation headers on every response. */
export const LEGACY: ApiGeneration = {
  prefix: '/api',
  version: 'v1',
  stability: 'deprecated',
  deprecated: true,
};

export const SUPPORTED_VERSIONS: readonly string[] = [CURRENT.version];
