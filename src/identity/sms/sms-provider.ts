/**
 * The port through which verification SMS leave the service, and the choice of its
 * implementation (SMS_PROVIDER): the development outbox by default, Twilio in production.
 */
import type { Config } from '../../platform/config/settings.js';
import { ConfigError } from '../../platform/config/setting.js';
import type { Logger } from '../../platform/logging/logger.js';
import { OutboxSmsProvider } from './outbox-sms-provider.js';
import { TwilioSmsProvider } from './twilio-sms-provider.js';

export interface SmsProvider {
  /** Sends `text` to the E.164 number `to`; rejects with SmsUnavailableError when it could not. */
  send(to: string, text: string): Promise<void>;
}

/** The provider did not take the message (unreachable, refused, timed out): the RPC answers 503. */
export class SmsUnavailableError extends Error {
  override readonly name = 'SmsUnavailableError';
}

export function createSmsProvider(config: Config, logger: Logger): SmsProvider {
  if (config.smsProvider === 'outbox') return new OutboxSmsProvider(config.dataDir, logger);
  const required = { TWILIO_ACCOUNT_SID: config.twilioAccountSid, TWILIO_AUTH_TOKEN: config.twilioAuthToken, SMS_FROM: config.smsFrom };
  for (const [env, value] of Object.entries(required)) if (!value) throw new ConfigError(env, 'is required when SMS_PROVIDER is twilio');
  return new TwilioSmsProvider({
    accountSid: config.twilioAccountSid as string,
    authToken: config.twilioAuthToken as string,
    from: config.smsFrom as string,
    ...(config.twilioApiUrl === undefined ? {} : { apiUrl: config.twilioApiUrl }),
    logger,
  });
}
