/**
 * Operator overrides of the spec's numbers (setting RATE_LIMIT_OVERRIDES, JSON): keys are the
 * scopes `ip`, `user`, `auth`, `default` (the default endpoint bucket) or an RPC as
 * `<Service>.<Method>` (e.g. `AuthService.Initialize`); values `{ "limit": n, "burst": n,
 * "window_seconds": n }`, each member optional. Unknown keys are refused at start.
 */
import { apiServices } from '../api/api-services.js';
import { ConfigError } from './setting.js';
import type { Setting } from './setting.js';

export interface BucketNumbers {
  readonly limit: number;
  readonly burst: number;
  readonly windowMs: number;
}

export type LimitOverrides = ReadonlyMap<string, Partial<BucketNumbers>>;

const SCOPES = new Set(['ip', 'user', 'auth', 'default']);
const ENV = 'RATE_LIMIT_OVERRIDES';

/** The setting: unset is no override; checked against the API's RPCs when the configuration loads. */
export function limitOverridesSetting(description: string): Setting<LimitOverrides> {
  return {
    env: ENV,
    description,
    defaultText: undefined,
    parse: (raw) => parseLimitOverrides(raw === '' ? undefined : raw),
  };
}

function parseLimitOverrides(text: string | undefined): LimitOverrides {
  if (text === undefined) return new Map();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new ConfigError(ENV, 'is not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new ConfigError(ENV, 'must be a JSON object');
  const rpcs = new Set(
    apiServices.flatMap((service) =>
      service.methods.map((method) => `${service.name}.${method.name}`),
    ),
  );
  const overrides = new Map<string, Partial<BucketNumbers>>();
  for (const [key, value] of Object.entries(parsed)) {
    if (!SCOPES.has(key) && !rpcs.has(key))
      throw new ConfigError(ENV, `has an unknown key "${key}" (a scope or <Service>.<Method>)`);
    overrides.set(key, bucketNumbers(key, value));
  }
  return overrides;
}

function bucketNumbers(key: string, value: unknown): Partial<BucketNumbers> {
  if (typeof value !== 'object' || value === null)
    throw new ConfigError(ENV, `"${key}" must be an object`);
  const numbers: { limit?: number; burst?: number; windowMs?: number } = {};
  for (const [member, raw] of Object.entries(value)) {
    if (typeof raw !== 'number' || !Number.isSafeInteger(raw) || raw < 1)
      throw new ConfigError(ENV, `"${key}.${member}" must be a positive whole number`);
    if (member === 'limit') numbers.limit = raw;
    else if (member === 'burst') numbers.burst = raw;
    else if (member === 'window_seconds') numbers.windowMs = raw * 1000;
    else
      throw new ConfigError(
        ENV,
        `"${key}" has an unknown member "${member}" (limit, burst, window_seconds)`,
      );
  }
  return numbers;
}
