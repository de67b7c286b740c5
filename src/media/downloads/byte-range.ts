/**
 * The `Range` header of a download (RFC 9110, section 14): one range of bytes, `bytes=a-b`,
 * `bytes=a-` or the suffix `bytes=-n`. Several ranges, other units or a malformed header are
 * ignored and the whole blob is served, as the RFC allows; a well-formed range that starts past
 * the end is unsatisfiable (416).
 */
import type { ByteRange } from '../storage/blob-store.js';

export type RangeRequest =
  { kind: 'whole' } | { kind: 'partial'; range: ByteRange } | { kind: 'unsatisfiable' };

const SINGLE_RANGE = /^bytes=(\d*)-(\d*)$/;

export function rangeOf(header: string | null, size: number): RangeRequest {
  const match = header === null ? null : SINGLE_RANGE.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return { kind: 'whole' };
  const [, first, last] = match as unknown as [string, string, string];
  if (first === '') {
    const suffix = Number(last);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    return { kind: 'partial', range: { start: Math.max(0, size - suffix), end: size - 1 } };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (end < start) return { kind: 'whole' };
  if (start >= size) return { kind: 'unsatisfiable' };
  return { kind: 'partial', range: { start, end: Math.min(end, size - 1) } };
}
