/**
 * The production SMS provider: Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/
 * Messages.json`, form-encoded, HTTP Basic with the account SID and auth token). SMS_FROM is
 * either a sender number (`From`) or a Messaging Service SID (`MessagingServiceSid`). The
 * message text (it holds the code), the number and the credentials never reach a log line or
 * an error: a failure is logged with the HTTP status and Twilio's numeric error code only.
 */
import type { Logger } from '../../platform/logging/logger.js';
import { SmsUnavailableError } from './sms-provider.js';
import type { SmsProvider } from './sms-provider.js';

export const TWILIO_API_URL = 'https://api.twilio.com';
const TIMEOUT_MS = 10_000;

export interface TwilioOptions {
  accountSid: string;
  authToken: string;
  from: string;
  apiUrl?: string;
  logger: Logger;
}

export class TwilioSmsProvider implements SmsProvider {
  private readonly url: string;
  private readonly authorization: string;

  constructor(private readonly options: TwilioOptions) {
    const base = (options.apiUrl ?? TWILIO_API_URL).replace(/\/+$/, '');
    this.url = `${base}/2010-04-01/Accounts/${encodeURIComponent(options.accountSid)}/Messages.json`;
    this.authorization = `Basic ${Buffer.from(`${options.accountSid}:${options.authToken}`).toString('base64')}`;
  }

  async send(to: string, text: string): Promise<void> {
    const sender: [string, string] = [
      /^MG[0-9a-fA-F]{32}$/.test(this.options.from) ? 'MessagingServiceSid' : 'From',
      this.options.from,
    ];
    let response: Response;
    try {
      response = await fetch(this.url, {
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams([['To', to], sender, ['Body', text]]),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      this.options.logger.error(
        { provider: 'twilio', reason: (error as Error).name },
        'SMS provider unreachable',
      );
      throw new SmsUnavailableError('the SMS provider is unreachable');
    }
    if (response.ok) {
      await response.body?.cancel();
      return;
    }
    const code = await response.json().then(
      (body: unknown) =>
        typeof (body as { code?: unknown } | null)?.code === 'number'
          ? (body as { code: number }).code
          : undefined,
      () => undefined,
    );
    this.options.logger.error(
      { provider: 'twilio', status: response.status, twilioErrorCode: code },
      'SMS provider refused the message',
    );
    throw new SmsUnavailableError(`the SMS provider answered ${response.status}`);
  }
}
