/**
 * Settings that are only valid together. They run once, in loadConfig, after every setting
 * has been read on its own: a component receives its section already checked and never
 * re-validates it.
 */
import { ConfigError } from './setting.js';
import type { Config } from './settings.js';

type CrossCheck = (config: Config) => void;

const captchaNeedsSecret: CrossCheck = ({ captcha }) => {
  if (captcha.provider !== 'off' && !captcha.secret)
    throw new ConfigError(
      'CAPTCHA_SECRET',
      `is required when CAPTCHA_PROVIDER is ${captcha.provider}`,
    );
};

const twilioNeedsCredentials: CrossCheck = ({ sms }) => {
  if (sms.provider !== 'twilio') return;
  const required = {
    TWILIO_ACCOUNT_SID: sms.twilioAccountSid,
    TWILIO_AUTH_TOKEN: sms.twilioAuthToken,
    SMS_FROM: sms.from,
  };
  for (const [env, value] of Object.entries(required))
    if (!value) throw new ConfigError(env, 'is required when SMS_PROVIDER is twilio');
};

// Several api pods on embedded stores would each keep their own data (and lose it with the pod).
const apiPodsShareOneDatabase: CrossCheck = ({ process: processSettings, store }) => {
  if (processSettings.role === 'api' && !store.mongodbUrl && !store.allowEmbeddedStore) {
    throw new ConfigError(
      'MONGODB_URL',
      'is required with ROLE=api (api pods must share one database); ALLOW_EMBEDDED_STORE=true runs a single api pod on the embedded store',
    );
  }
};

// A VAPID key pair is one key: half of it configured would sign with a key the browsers never saw.
const vapidKeysTogether: CrossCheck = ({ push }) => {
  if ((push.vapidPublicKey === undefined) !== (push.vapidPrivateKey === undefined)) {
    throw new ConfigError(
      push.vapidPublicKey === undefined ? 'PUSH_VAPID_PUBLIC_KEY' : 'PUSH_VAPID_PRIVATE_KEY',
      'must be set together with its other half',
    );
  }
};

export const crossChecks: readonly CrossCheck[] = [
  captchaNeedsSecret,
  twilioNeedsCredentials,
  apiPodsShareOneDatabase,
  vapidKeysTogether,
];
