import { BlockList, isIP } from 'node:net';

/**
 * A setting is one environment variable: its name, what it means, its default and how its text
 * becomes a value. The README table of variables is checked against these declarations.
 */
export interface Setting<T> {
  readonly env: string;
  readonly description: string;
  /** Shown in the README; `undefined` means the setting is optional and off when unset. */
  readonly defaultText: string | undefined;
  parse(raw: string | undefined): T;
}

export class ConfigError extends Error {
  constructor(env: string, problem: string) {
    super(`Invalid configuration: ${env} ${problem}`);
  }
}

export function integerSetting(
  env: string,
  description: string,
  fallback: number,
  min: number,
  max: number,
): Setting<number> {
  return {
    env,
    description,
    defaultText: String(fallback),
    parse(raw) {
      if (raw === undefined || raw === '') return fallback;
      if (!/^\d+$/.test(raw)) throw new ConfigError(env, `must be a whole number, got "${raw}"`);
      const value = Number(raw);
      if (value < min || value > max)
        throw new ConfigError(env, `must be between ${min} and ${max}, got ${value}`);
      return value;
    },
  };
}

/**
 * A whole number whose default is worked out when the service starts (from the machine it runs
 * on), so the README shows it as unset and the description says what unset means.
 */
export function computedIntegerSetting(
  env: string,
  description: string,
  computed: () => number,
  min: number,
  max: number,
): Setting<number> {
  const explicit = integerSetting(env, description, min, min, max);
  return {
    env,
    description,
    defaultText: undefined,
    parse: (raw) => (raw === undefined || raw === '' ? computed() : explicit.parse(raw)),
  };
}

export function stringSetting(
  env: string,
  description: string,
  fallback: string,
  pattern?: RegExp,
): Setting<string> {
  return {
    env,
    description,
    defaultText: fallback,
    parse(raw) {
      const value = raw === undefined || raw === '' ? fallback : raw;
      if (pattern && !pattern.test(value))
        throw new ConfigError(env, `has an invalid value "${value}"`);
      return value;
    },
  };
}

export function optionalUrlSetting(
  env: string,
  description: string,
  protocols: readonly string[],
): Setting<string | undefined> {
  return {
    env,
    description,
    defaultText: undefined,
    parse(raw) {
      if (raw === undefined || raw === '') return undefined;
      let url: URL;
      try {
        url = new URL(raw);
      } catch {
        throw new ConfigError(env, 'is not a valid URL');
      }
      if (!protocols.includes(url.protocol)) {
        throw new ConfigError(env, `must use one of ${protocols.join(', ')}; got ${url.protocol}`);
      }
      return raw;
    },
  };
}

export function choiceSetting<T extends string>(
  env: string,
  description: string,
  choices: readonly T[],
  fallback: T,
): Setting<T> {
  return {
    env,
    description: `${description} One of: ${choices.join(', ')}.`,
    defaultText: fallback,
    parse(raw) {
      const value = raw === undefined || raw === '' ? fallback : raw;
      if (!(choices as readonly string[]).includes(value)) {
        throw new ConfigError(env, `must be one of ${choices.join(', ')}, got "${value}"`);
      }
      return value as T;
    },
  };
}

export function dateSetting(env: string, description: string, fallback: string): Setting<Date> {
  return {
    env,
    description: `${description} (YYYY-MM-DD)`,
    defaultText: fallback,
    parse(raw) {
      const value = raw === undefined || raw === '' ? fallback : raw;
      const date = new Date(`${value}T00:00:00Z`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(value) || Number.isNaN(date.getTime())) {
        throw new ConfigError(env, `must be a date YYYY-MM-DD, got "${value}"`);
      }
      return date;
    },
  };
}

const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** A duration like `720h`, `30m`, `45s` or `500ms`, in milliseconds; `0` (or unset, when allowed) means off. */
export function durationSetting(
  env: string,
  description: string,
  fallback: string,
): Setting<number> {
  return {
    env,
    description,
    defaultText: fallback === '0' ? undefined : fallback,
    parse(raw) {
      const text = raw === undefined || raw === '' ? fallback : raw;
      if (text === '0') return 0;
      const match = /^(\d+)(ms|s|m|h)$/.exec(text);
      if (!match)
        throw new ConfigError(env, `must be a duration such as 720h, 30m or 45s, got "${text}"`);
      return Number(match[1]) * (DURATION_UNITS[match[2] as string] as number);
    },
  };
}

export function booleanSetting(
  env: string,
  description: string,
  fallback: boolean,
): Setting<boolean> {
  return {
    env,
    description,
    defaultText: String(fallback),
    parse(raw) {
      if (raw === undefined || raw === '') return fallback;
      if (raw !== 'true' && raw !== 'false')
        throw new ConfigError(env, `must be true or false, got "${raw}"`);
      return raw === 'true';
    },
  };
}

/** Free text that is off when unset (keys, JSON documents). Never shown in errors: it may be secret. */
export function optionalTextSetting(env: string, description: string): Setting<string | undefined> {
  return {
    env,
    description,
    defaultText: undefined,
    parse: (raw) => (raw === undefined || raw === '' ? undefined : raw),
  };
}

/**
 * A comma-separated list of CIDRs (IPv4 and IPv6, e.g. `10.0.0.0/8,fd00::/8,127.0.0.1/32`) as a
 * BlockList to match addresses against; unset means an empty list, `undefined`.
 */
export function cidrListSetting(env: string, description: string): Setting<BlockList | undefined> {
  return {
    env,
    description,
    defaultText: undefined,
    parse(raw) {
      if (raw === undefined || raw.trim() === '') return undefined;
      const list = new BlockList();
      for (const item of raw.split(',')) {
        const cidr = item.trim();
        const match = /^([^/\s]+)\/(\d{1,3})$/.exec(cidr);
        const family = match ? isIP(match[1] as string) : 0;
        const prefix = match ? Number(match[2]) : -1;
        if (family === 0 || prefix > (family === 4 ? 32 : 128)) {
          throw new ConfigError(
            env,
            `must be a comma-separated list of CIDRs such as 10.0.0.0/8 or fd00::/8, got "${cidr}"`,
          );
        }
        list.addSubnet(match?.[1] as string, prefix, family === 4 ? 'ipv4' : 'ipv6');
      }
      return list;
    },
  };
}
