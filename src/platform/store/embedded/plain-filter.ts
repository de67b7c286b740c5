/**
 * The commonest filters, compiled without mingo: every condition on a top-level field (no dot,
 * no `$`), either a string, finite number or boolean to equal, or an operator object of `$eq`
 * (such a value), `$in` (of such values), `$exists`, and `$type: 'string'` (`{_id: 'x', owner:
 * 'y'}`, `{_id: a, deletedAt: {$exists: false}}`, `{conversationId: c, address: {$in: [a, b]}}`).
 * mingo builds its operator context anew for every query, which cost more than the lookup itself
 * on the send path; these filters need none of it.
 *
 * MongoDB's semantics: equality holds when the field equals the value or is an array with an
 * element equal to it (one level deep); strict equality is exact for these types (no numeric or
 * string conversion in MongoDB either, and 0 equals -0 in both). `$exists` asks whether the field
 * is present (null counts as present). `$type: 'string'` holds for a string or an array with a
 * string element. Several operators on one field each hold on their own. Anything else (null,
 * which also matches a missing field; dates; nested paths; other operators) is left to mingo.
 */
import { isOperatorObject } from '../operator-object.js';

export interface DocumentPredicate {
  test(doc: object): boolean;
}

type Scalar = string | number | boolean;
type ValuePredicate = (value: unknown, present: boolean) => boolean;

/** A predicate for `filter`, or undefined when it is not made only of such conditions. */
export function compilePlainFilter(filter: Record<string, unknown>): DocumentPredicate | undefined {
  const conditions: [field: string, holds: ValuePredicate][] = [];
  for (const [field, condition] of Object.entries(filter)) {
    if (field === '' || field.startsWith('$') || field.includes('.')) return undefined;
    const holds = conditionPredicate(condition);
    if (!holds) return undefined;
    conditions.push([field, holds]);
  }
  return {
    test(doc) {
      for (const [field, holds] of conditions) {
        const present = Object.hasOwn(doc, field);
        if (!holds(present ? (doc as Record<string, unknown>)[field] : undefined, present))
          return false;
      }
      return true;
    },
  };
}

function conditionPredicate(condition: unknown): ValuePredicate | undefined {
  if (isScalar(condition)) return equalsAny([condition]);
  if (!isOperatorObject(condition)) return undefined;
  const predicates: ValuePredicate[] = [];
  for (const [operator, argument] of Object.entries(condition)) {
    const predicate = operatorPredicate(operator, argument);
    if (!predicate) return undefined;
    predicates.push(predicate);
  }
  return (value, present) => predicates.every((predicate) => predicate(value, present));
}

function operatorPredicate(operator: string, argument: unknown): ValuePredicate | undefined {
  switch (operator) {
    case '$eq':
      return isScalar(argument) ? equalsAny([argument]) : undefined;
    case '$in':
      return Array.isArray(argument) && argument.every(isScalar) ? equalsAny(argument) : undefined;
    case '$exists':
      return typeof argument === 'boolean' ? (_value, present) => present === argument : undefined;
    case '$type':
      return argument === 'string'
        ? (value) =>
            typeof value === 'string' ||
            (Array.isArray(value) && value.some((element) => typeof element === 'string'))
        : undefined;
    default:
      return undefined;
  }
}

/** A Set, so that `$in` over a whole group's members costs one lookup per document (SameValueZero: 0 equals -0, as in MongoDB). */
function equalsAny(accepted: readonly Scalar[]): ValuePredicate {
  const wanted = new Set<unknown>(accepted);
  return (value) =>
    wanted.has(value) || (Array.isArray(value) && value.some((element) => wanted.has(element)));
}

function isScalar(value: unknown): value is Scalar {
  return (
    typeof value === 'string' ||
    typeof value === 'boolean' ||
    (typeof value === 'number' && Number.isFinite(value))
  );
}
