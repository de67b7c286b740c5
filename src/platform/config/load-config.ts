import { ConfigError } from './setting.js';
import { settings } from './settings.js';
import type { Config } from './settings.js';

/** Reads and validates every setting; the first invalid one throws a ConfigError naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const entries = Object.entries(settings).map(([key, setting]) => [key, setting.parse(env[setting.env])]);
  const config = Object.freeze(Object.fromEntries(entries)) as Config;
  // Settings that are only valid together.
  if (config.captchaProvider !== 'off' && !config.captchaSecret) throw new ConfigError('CAPTCHA_SECRET', `is required when CAPTCHA_PROVIDER is ${config.captchaProvider}`);
  // Several api pods on embedded stores would each keep their own data (and lose it with the pod).
  if (config.role === 'api' && !config.mongodbUrl && !config.allowEmbeddedStore) {
    throw new ConfigError('MONGODB_URL', 'is required with ROLE=api (api pods must share one database); ALLOW_EMBEDDED_STORE=true runs a single api pod on the embedded store');
  }
  return config;
}
