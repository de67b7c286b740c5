/** The SMS provider that SMS_PROVIDER names: the development outbox by default, Twilio in production. */
import type { SmsSettings } from '../../platform/config/settings.js';
import type { Logger } from '../../platform/logging/logger.js';
import { OutboxSmsProvider } from './outbox-sms-provider.js';
import type { SmsProvider } from './sms-provider.js';
import { TwilioSmsProvider } from './twilio-sms-provider.js';

/** `dataDir` holds the development outbox. The Twilio credentials were checked when the configuration loaded. */
export function createSmsProvider(
  settings: SmsSettings,
  dataDir: string,
  logger: Logger,
): SmsProvider {
  if (settings.provider === 'outbox') return new OutboxSmsProvider(dataDir, logger);
  return new TwilioSmsProvider({
    accountSid: settings.twilioAccountSid as string,
    authToken: settings.twilioAuthToken as string,
    from: settings.from as string,
    ...(settings.twilioApiUrl === undefined ? {} : { apiUrl: settings.twilioApiUrl }),
    logger,
  });
}
