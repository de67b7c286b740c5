/**
 * The bounds of a poll (polls.proto): checked before anything is stored, each violation a
 * `400 INVALID_ARGUMENT` naming the field. Lengths count Unicode code points, so an emoji is one
 * character. Texts are trimmed: a blank option is empty, and " Yes" duplicates "Yes".
 */
import { invalidArgument } from '../platform/errors/api-error.js';

export const POLL_LIMITS = {
  questionLength: 300,
  optionLength: 100,
  minOptions: 2,
  maxOptions: 10,
  /** The furthest closing time accepted, from now. */
  maxLifetimeMs: 365 * 24 * 60 * 60 * 1000,
} as const;

/** Poll, channel and group ids are opaque strings of at most 64 characters (polls.proto). */
const MAX_ID_LENGTH = 64;

export function checkedId(value: string, field: string): string {
  if (value === '' || value.length > MAX_ID_LENGTH)
    throw invalidArgument(`${field} must have 1 to ${MAX_ID_LENGTH} characters`);
  return value;
}

/** ISO 8601 date and time with an offset (`Z` or `±hh:mm`); seconds and fractions optional. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

const characters = (text: string) => [...text].length;

export function checkedQuestion(question: string): string {
  const trimmed = question.trim();
  if (trimmed === '' || characters(trimmed) > POLL_LIMITS.questionLength)
    throw invalidArgument(`question must have 1 to ${POLL_LIMITS.questionLength} characters`);
  return trimmed;
}

export function checkedOptions(options: readonly string[]): string[] {
  if (options.length < POLL_LIMITS.minOptions || options.length > POLL_LIMITS.maxOptions) {
    throw invalidArgument(
      `options must hold ${POLL_LIMITS.minOptions} to ${POLL_LIMITS.maxOptions} texts`,
    );
  }
  const texts = options.map((option) => option.trim());
  if (texts.some((text) => text === '' || characters(text) > POLL_LIMITS.optionLength)) {
    throw invalidArgument(`every option must have 1 to ${POLL_LIMITS.optionLength} characters`);
  }
  if (new Set(texts).size !== texts.length) throw invalidArgument('options must be distinct');
  return texts;
}

/** The closing time: null for none (empty), otherwise a parseable ISO-8601 time in the future, at most a year ahead. */
export function checkedExpiry(expiresAt: string, now = Date.now()): Date | null {
  if (expiresAt === '') return null;
  const at = ISO_TIMESTAMP.test(expiresAt) ? Date.parse(expiresAt) : Number.NaN;
  if (Number.isNaN(at))
    throw invalidArgument(
      'expires_at must be an ISO-8601 timestamp with an offset, such as 2026-12-01T18:00:00.000Z',
    );
  if (at <= now) throw invalidArgument('expires_at must be in the future');
  if (at - now > POLL_LIMITS.maxLifetimeMs)
    throw invalidArgument('expires_at must be at most 365 days ahead');
  return new Date(at);
}

/** The chosen option ids of a vote: present, distinct, and one only on a single-choice poll. */
export function checkedChoice(optionIds: readonly string[], allowsMultiple: boolean): string[] {
  if (optionIds.length === 0) throw invalidArgument('option_ids must name at least one option');
  if (new Set(optionIds).size !== optionIds.length)
    throw invalidArgument('option_ids must be distinct');
  if (!allowsMultiple && optionIds.length > 1)
    throw invalidArgument('This poll takes exactly one option');
  return [...optionIds];
}

export const isExpired = (expiresAt: Date | null, now = Date.now()) =>
  expiresAt !== null && expiresAt.getTime() <= now;
