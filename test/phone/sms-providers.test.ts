/**
 * The SMS providers: the development outbox (a JSON line per message, and the log), and
 * Twilio's Messages API spoken to a local fake server: the request, the credentials, the
 * failures as SmsUnavailableError, and no code or number in its logs.
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/platform/logging/logger.js';
import { loadConfig } from '../../src/platform/config/load-config.js';
import { OutboxSmsProvider, outboxPath } from '../../src/phone/sms/outbox-sms-provider.js';
import { createSmsProvider } from '../../src/phone/sms/select-sms-provider.js';
import { SmsUnavailableError } from '../../src/phone/sms/sms-provider.js';
import { TwilioSmsProvider } from '../../src/phone/sms/twilio-sms-provider.js';

function capturingLogger() {
  const lines: string[] = [];
  const logger = createLogger(
    'info',
    new Writable({ write: (chunk: Buffer, _e, done) => (lines.push(chunk.toString()), done()) }),
  );
  return { logger, lines };
}

it('writes each message to the outbox file and the log', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'sms-'));
  try {
    const { logger, lines } = capturingLogger();
    const provider = new OutboxSmsProvider(dataDir, logger);
    await provider.send('+15550000001', 'code: 123456');
    await provider.send('+15550000002', 'code: 654321');
    const entries = readFileSync(outboxPath(dataDir), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(entries.map(({ to, text }) => ({ to, text }))).toEqual([
      { to: '+15550000001', text: 'code: 123456' },
      { to: '+15550000002', text: 'code: 654321' },
    ]);
    expect(lines.join('')).toContain('code: 654321');
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

describe('Twilio', () => {
  let answer = { status: 201, body: '{"sid":"SM1"}' };
  const received: { url: string; authorization: string; form: URLSearchParams }[] = [];
  const answerTwilio = async (request: IncomingMessage, response: ServerResponse) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    received.push({
      url: request.url ?? '',
      authorization: request.headers.authorization ?? '',
      form: new URLSearchParams(body),
    });
    response.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  };
  // A request that fails to read breaks its connection, so the test waiting for it fails.
  const server = createServer((request, response) => {
    answerTwilio(request, response).catch((error: unknown) => response.destroy(error as Error));
  });
  let apiUrl: string;
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('posts the message form with Basic credentials to the account Messages resource', async () => {
    const { logger } = capturingLogger();
    await new TwilioSmsProvider({
      accountSid: 'AC123',
      authToken: 'secret-token',
      from: '+15559990000',
      apiUrl,
      logger,
    }).send('+15550000001', 'code: 123456');
    const request = received.at(-1)!;
    expect(request.url).toBe('/2010-04-01/Accounts/AC123/Messages.json');
    expect(request.authorization).toBe(
      `Basic ${Buffer.from('AC123:secret-token').toString('base64')}`,
    );
    expect(Object.fromEntries(request.form)).toEqual({
      To: '+15550000001',
      From: '+15559990000',
      Body: 'code: 123456',
    });

    const service = `MG${'a'.repeat(32)}`;
    await new TwilioSmsProvider({
      accountSid: 'AC123',
      authToken: 't',
      from: service,
      apiUrl,
      logger,
    }).send('+15550000001', 'x');
    expect(Object.fromEntries(received.at(-1)!.form)).toEqual({
      To: '+15550000001',
      MessagingServiceSid: service,
      Body: 'x',
    });
  });

  it('turns a refusal or an unreachable API into SmsUnavailableError, logging no code, number or secret', async () => {
    const { logger, lines } = capturingLogger();
    answer = {
      status: 400,
      body: '{"code":21211,"message":"The To number +15550000001 is not valid"}',
    };
    const provider = new TwilioSmsProvider({
      accountSid: 'AC123',
      authToken: 'secret-token',
      from: '+15559990000',
      apiUrl,
      logger,
    });
    await expect(provider.send('+15550000001', 'code: 123456')).rejects.toBeInstanceOf(
      SmsUnavailableError,
    );
    await expect(
      new TwilioSmsProvider({
        accountSid: 'AC1',
        authToken: 't',
        from: '+1',
        apiUrl: 'http://127.0.0.1:1',
        logger,
      }).send('+15550000001', 'code: 123456'),
    ).rejects.toBeInstanceOf(SmsUnavailableError);
    const logged = lines.join('');
    expect(logged).toContain('21211');
    for (const secret of ['123456', '+15550000001', 'secret-token'])
      expect(logged).not.toContain(secret);
    answer = { status: 201, body: '{}' };
  });

  it('is chosen by SMS_PROVIDER and needs its credentials', () => {
    const { logger } = capturingLogger();
    const base = { DATA_DIR: tmpdir() };
    expect(createSmsProvider(loadConfig(base).sms, base.DATA_DIR, logger)).toBeInstanceOf(
      OutboxSmsProvider,
    );
    expect(() =>
      createSmsProvider(loadConfig({ ...base, SMS_PROVIDER: 'twilio' }).sms, base.DATA_DIR, logger),
    ).toThrow(/TWILIO_ACCOUNT_SID/);
    const twilio = {
      ...base,
      SMS_PROVIDER: 'twilio',
      TWILIO_ACCOUNT_SID: 'AC1',
      TWILIO_AUTH_TOKEN: 't',
      SMS_FROM: '+15559990000',
    };
    expect(createSmsProvider(loadConfig(twilio).sms, base.DATA_DIR, logger)).toBeInstanceOf(
      TwilioSmsProvider,
    );
  });
});
