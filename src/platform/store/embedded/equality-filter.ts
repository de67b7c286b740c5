/**
 * The commonest filters, compiled without mingo: every condition a top-level field (no dot, no
 * `$`) equal to a string, a finite number or a boolean, or `{$in: [...]}` of those (`{_id: 'x',
 * owner: 'y'}`, `{conversationId: c, address: {$in: [a, b]}}`). mingo builds its operator context
 * anew for every query, which cost more than the lookup itself on the send path; these filters
 * need none of it.
 *
 * MongoDB's equality on such a value: the field equals it, or the field is an array with an
 * element equal to it (one level deep). Strict equality is exact for these types: no numeric or
 * string conversion happens in MongoDB either, and 0 equals -0 in both. Anything else (null,
 * which also matches a missing field; dates; nested paths; other operators) is left to mingo.
 */
import { isOperatorObject } from '../operator-object.js';

export interface DocumentPredicate {
  test(doc: object): boolean;
}

type Scalar = string | number | boolean;

/** A predicate for `filter`, or undefined when it is not made only of such conditions. */
export function compileEqualityFilter(filter: Record<string, unknown>): DocumentPredicate | undefined {
  const conditions: [field: string, accepted: readonly Scalar[]][] = [];
  for (const [field, condition] of Object.entries(filter)) {
    if (field.startsWith('$') || field.includes('.')) return undefined;
    const accepted = acceptedValues(condition);
    if (!accepted) return undefined;
    conditions.push([field, accepted]);
  }
  return {
    test(doc) {
      for (const [field, accepted] of conditions) {
        const value = (doc as Record<string, unknown>)[field];
        if (!accepted.some((wanted) => value === wanted || (Array.isArray(value) && value.includes(wanted)))) return false;
      }
      return true;
    },
  };
}

/** The values a condition accepts, when it is a scalar or `{$in: [scalars]}`. */
function acceptedValues(condition: unknown): readonly Scalar[] | undefined {
  if (isScalar(condition)) return [condition];
  if (!isOperatorObject(condition)) return undefined;
  const keys = Object.keys(condition);
  if (keys.length !== 1 || keys[0] !== '$in') return undefined;
  const values = condition.$in;
  return Array.isArray(values) && values.every(isScalar) ? values : undefined;
}

function isScalar(value: unknown): value is Scalar {
  return typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}
