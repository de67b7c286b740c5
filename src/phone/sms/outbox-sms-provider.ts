/**
 * The development SMS provider: nothing is sent. Each message is appended as one JSON line
 * (`{"at", "to", "text"}`) to `<DATA_DIR>/sms-outbox.jsonl` and written to the log, so that a
 * developer (or a test) can read the code and complete a phone flow by hand. This is the one
 * place where a code and a number are deliberately written down: never run it in production.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../../platform/logging/logger.js';
import type { SmsProvider } from './sms-provider.js';

export const outboxPath = (dataDir: string): string => join(dataDir, 'sms-outbox.jsonl');

export class OutboxSmsProvider implements SmsProvider {
  private readonly path: string;

  constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
  ) {
    this.path = outboxPath(dataDir);
  }

  async send(to: string, text: string): Promise<void> {
    await mkdir(this.dataDir, { recursive: true });
    await appendFile(this.path, `${JSON.stringify({ at: new Date().toISOString(), to, text })}\n`, {
      mode: 0o600,
    });
    this.logger.warn(
      { smsOutbox: { to, text } },
      'SMS written to the development outbox (SMS_PROVIDER=outbox), not sent',
    );
  }
}
