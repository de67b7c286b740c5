import { EJSON } from 'bson';
import type { Mutation } from './mutation.js';

/**
 * Relaxed EJSON keeps every value the store holds (dates, Binary, ObjectId, non-finite
 * numbers) while plain numbers stay short; -0 is the only thing it does not preserve.
 */
export function encodeRecord(value: Mutation | Mutation[] | SnapshotEnd): string {
  return `${EJSON.stringify(value, { relaxed: true })}\n`;
}

/** Parsed value of one line, or undefined when the line is not valid EJSON. */
export function decodeRecord(text: string): unknown {
  try {
    return EJSON.parse(text, { relaxed: true });
  } catch {
    return undefined;
  }
}

/** Last line of a snapshot: proves it was written to the end. */
export interface SnapshotEnd {
  op: 'end';
  count: number;
}
