/**
 * The port through which verification SMS leave the service, and the choice of its
 * implementation (SMS_PROVIDER): the development outbox by default, Twilio in production.
 */
import type { SmsSettings } from '../../platform/config/settings.js';
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

/** `dataDir` holds the development outbox. The Twilio credentials were checked when the configuration loaded. */
export function createSmsProvider(settings: SmsSettings, dataDir: string, logger: Logger): SmsProvider {
  if (settings.provider === 'outbox') return new OutboxSmsProvider(dataDir, logger);
  return new TwilioSmsProvider({
    accountSid: settings.twilioAccountSid as string,
    authToken: settings.twilioAuthToken as string,
    from: settings.from as string,
    ...(settings.twilioApiUrl === undefined ? {} : { apiUrl: settings.twilioApiUrl }),
    logger,
  });
}
