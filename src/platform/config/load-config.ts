import { ConfigError } from './setting.js';
import { settings } from './settings.js';
import type { Config } from './settings.js';

/** Reads and validates every setting; the first invalid one throws a ConfigError naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const entries = Object.entries(settings).map(([key, setting]) => [key, setting.parse(env[setting.env])]);
  const config = Object.freeze(Object.fromEntries(entries)) as Config;
  // Settings that are only valid together.
  if (config.captchaProvider !== 'off' && !config.captchaSecret) throw new ConfigError('CAPTCHA_SECRET', `is required when CAPTCHA_PROVIDER is ${config.captchaProvider}`);
  return config;
}
