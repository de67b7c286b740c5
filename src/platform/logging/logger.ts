/**
 * Structured JSON logs (pino). Credentials never reach a log line: the usual carriers of
 * tokens and secrets are redacted wherever they appear in a logged object.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';

export type { Logger };

const REDACTED_PATHS = [
  '*.authorization',
  '*.cookie',
  '*["set-cookie"]',
  '*.access_token',
  '*.refresh_token',
  '*.signature',
  '*.password',
  '*.secret',
  '*.ticket',
  'headers.authorization',
  'headers.cookie',
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'messaging-service', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    },
    destination,
  );
}
