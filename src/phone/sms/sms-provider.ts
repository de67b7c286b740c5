/**
 * The port through which verification SMS leave the service. Its implementations: the
 * development outbox and Twilio (chosen by select-sms-provider.ts).
 */
export interface SmsProvider {
  /** Sends `text` to the E.164 number `to`; rejects with SmsUnavailableError when it could not. */
  send(to: string, text: string): Promise<void>;
}

/** The provider did not take the message (unreachable, refused, timed out): the RPC answers 503. */
export class SmsUnavailableError extends Error {
  override readonly name = 'SmsUnavailableError';
}
