/**
 * Structured JSON logs (pino). Credentials never reach a log line: the usual carriers of
 * tokens and secrets are redacted wherever they appear in a logged object. A line written
 * inside a traced span carries its `trace_id` and `span_id`, so logs and traces join up.
 */
import { pino } from 'pino';
import type { Logger } from 'pino';
import { currentTraceIds } from '../tracing/spans.js';

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

const NO_FIELDS = Object.freeze({});

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level,
      base: { service: 'messaging-service', pid: process.pid },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
      mixin: () => currentTraceIds() ?? NO_FIELDS,
      // pino merges by assigning the line's fields onto the mixin's object: never onto the shared
      // empty one (a fresh object per line would cost every line of an untraced process).
      mixinMergeStrategy: (fields, mixed) =>
        mixed === NO_FIELDS ? fields : Object.assign(mixed, fields),
    },
    destination,
  );
}
