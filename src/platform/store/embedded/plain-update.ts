/**
 * The commonest updates applied without mingo: `$set`, `$unset`, `$inc` and `$max` of top-level
 * fields (no dot, no positional `$`) holding plain values (`{$set: {activityAt: d}}`, `{$max:
 * {lastSequence: n}}`, `{$unset: {unannounced: ''}}`). mingo's updater builds its operator
 * context anew for every document it updates, which cost more than the change itself on the
 * send path.
 *
 * MongoDB's results, including which updates modify nothing: `$set` of an equal value, `$unset`
 * of a missing field, `$inc` by 0 of a present number, `$max` of a value not above the present
 * one. `$inc` applies to a number or a missing field (checkTypes refuses the rest first); `$max`
 * is handled here only between two numbers or two dates, or onto a missing field. Anything else
 * is left to mingo.
 */
import { isEqual } from 'mingo/util';
import { cloneValue } from './clone-value.js';

type Operators = Record<string, Record<string, unknown>>;
type Doc = Record<string, unknown>;

const APPLY: Record<string, (doc: Doc, field: string, value: unknown) => boolean> = {
  $set(doc, field, value) {
    if (Object.hasOwn(doc, field) && isEqual(doc[field], value)) return false;
    doc[field] = cloneValue(value);
    return true;
  },
  $unset(doc, field) {
    if (!Object.hasOwn(doc, field)) return false;
    delete doc[field];
    return true;
  },
  $inc(doc, field, value) {
    const present = doc[field];
    if (present !== undefined && value === 0) return false;
    doc[field] = ((present as number | undefined) ?? 0) + (value as number);
    return true;
  },
  $max(doc, field, value) {
    const present = doc[field];
    if (present !== undefined && ordinal(value)! <= ordinal(present)!) return false;
    doc[field] = cloneValue(value);
    return true;
  },
};

/**
 * Applies `operators` to `doc` (mutating it) when every one is plain: the fields modified, or
 * undefined, with `doc` untouched, when mingo must apply them.
 */
export function applyPlainUpdate(doc: Doc, operators: Operators): string[] | undefined {
  for (const [operator, fields] of Object.entries(operators)) {
    if (!(operator in APPLY)) return undefined;
    for (const [field, value] of Object.entries(fields)) {
      if (
        field === '' ||
        field.includes('.') ||
        field.includes('$') ||
        !isPlain(operator, doc[field], value)
      )
        return undefined;
    }
  }
  const modified: string[] = [];
  for (const [operator, fields] of Object.entries(operators)) {
    for (const [field, value] of Object.entries(fields))
      if (APPLY[operator]!(doc, field, value)) modified.push(field);
  }
  return modified;
}

function isPlain(operator: string, present: unknown, value: unknown): boolean {
  if (operator === '$inc')
    return typeof value === 'number' && (present === undefined || typeof present === 'number');
  if (operator === '$max') {
    const kind = ordinal(value) === undefined ? undefined : typeof value;
    return (
      kind !== undefined &&
      (present === undefined || (ordinal(present) !== undefined && typeof present === kind))
    );
  }
  return true;
}

/** A finite number, or a date as its time: the values `$max` compares here. */
function ordinal(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (value instanceof Date) return value.getTime();
  return undefined;
}
