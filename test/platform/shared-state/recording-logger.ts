import { pino } from 'pino';
import type { Logger } from 'pino';

export interface LogRecord {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** A real pino logger whose lines are kept in memory, so tests can assert on them. */
export function recordingLogger(): { logger: Logger; records: LogRecord[] } {
  const records: LogRecord[] = [];
  const logger = pino(
    { level: 'debug' },
    { write: (line: string) => records.push(JSON.parse(line) as LogRecord) },
  );
  return { logger, records };
}

export const LEVEL = { info: 30, warn: 40, error: 50 } as const;
