import { crossChecks } from './cross-checks.js';
import { settings } from './settings.js';
import type { Setting } from './setting.js';
import type { Config } from './settings.js';

/**
 * Reads and validates every setting, section by section, then the settings that are only
 * valid together (cross-checks.ts); the first invalid one throws a ConfigError naming it.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const sections = Object.entries(settings).map(([name, section]): [string, unknown] => {
    const values = Object.entries<Setting<unknown>>(section).map(
      ([key, setting]): [string, unknown] => [key, setting.parse(env[setting.env])],
    );
    return [name, Object.freeze(Object.fromEntries(values))];
  });
  const config = Object.freeze(Object.fromEntries(sections)) as Config;
  for (const check of crossChecks) check(config);
  return config;
}
