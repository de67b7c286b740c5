import { ConfigError } from './setting.js';
import type { Setting } from './setting.js';

/** A fraction from 0 to 1 (a sampling ratio), written as a decimal number. */
export function ratioSetting(env: string, description: string, fallback: number): Setting<number> {
  return {
    env,
    description,
    defaultText: String(fallback),
    parse(raw) {
      if (raw === undefined || raw === '') return fallback;
      const value = /^(0|1|0?\.\d+|1\.0*)$/.test(raw) ? Number(raw) : Number.NaN;
      if (!(value >= 0 && value <= 1))
        throw new ConfigError(env, `must be a number from 0 to 1, got "${raw}"`);
      return value;
    },
  };
}
