/**
 * Whether MongoDB's planner may use a partial index for a query: only when the query's
 * predicates imply the index's filter, decided syntactically by expression::isSubsetOf
 * (src/mongo/db/matcher/expression_algo.cpp), never by looking at data. Notably `{a: 'x'}`
 * implies `{a: {$exists: true}}` and `{a: {$gte: 'a'}}` but NOT `{a: {$type: 'string'}}`: a
 * `$type` filter is implied only by the same `$type` predicate in the query.
 */
import { isOperatorObject } from '../operator-object.js';
import { compareValues } from './sort-order.js';

/** One predicate: a path, an operator and its argument (`{a: 5}` is `a $eq 5`). */
interface Leaf {
  path: string;
  operator: string;
  argument: unknown;
}

/** A predicate tree in the shape isSubsetOf walks: conjunctions, disjunctions and leaves. */
type Expression = { and: Expression[] } | { or: Expression[] } | Leaf;

export function impliesPartialFilter(
  query: Record<string, unknown>,
  partialFilter: Record<string, unknown>,
): boolean {
  return isSubsetOf(parse(query), parse(partialFilter));
}

function parse(filter: Record<string, unknown>): Expression {
  const children: Expression[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if ((key === '$and' || key === '$or') && Array.isArray(condition)) {
      const clauses = condition.map((clause) => parse(clause as Record<string, unknown>));
      children.push(key === '$and' ? { and: clauses } : { or: clauses });
    } else if (!key.startsWith('$')) {
      const operators = isOperatorObject(condition)
        ? Object.entries(condition)
        : [['$eq', condition] as const];
      for (const [operator, argument] of operators)
        children.push({ path: key, operator, argument });
    } else {
      children.push({ path: '', operator: key, argument: condition }); // $nor, $expr, ...: implies nothing
    }
  }
  return children.length === 1 ? (children[0] as Expression) : { and: children };
}

/** lhs is the query, rhs the index's filter; the recursion order is the server's. */
function isSubsetOf(lhs: Expression, rhs: Expression): boolean {
  if ('or' in rhs) return rhs.or.some((child) => isSubsetOf(lhs, child));
  if ('and' in rhs) return rhs.and.every((child) => isSubsetOf(lhs, child));
  if ('and' in lhs) return lhs.and.some((child) => isSubsetOf(child, rhs));
  if ('or' in lhs) return lhs.or.every((child) => isSubsetOf(child, rhs));
  return leafImplies(lhs, rhs);
}

const COMPARISONS = new Set(['$eq', '$lt', '$lte', '$gt', '$gte']);
const EXISTENCE_IMPLIED_BY = new Set(['$elemMatch', '$exists', '$mod', '$regex', '$size', '$type']);

function leafImplies(lhs: Leaf, rhs: Leaf): boolean {
  if (lhs.path !== rhs.path) return false;
  if (lhs.operator === rhs.operator && sameArgument(lhs.argument, rhs.argument)) return true;
  if (COMPARISONS.has(rhs.operator)) return comparisonImplies(lhs, rhs);
  if (rhs.operator === '$exists' && rhs.argument) {
    if (COMPARISONS.has(lhs.operator)) return lhs.argument !== null;
    if (lhs.operator === '$in') return Array.isArray(lhs.argument) && !lhs.argument.includes(null);
    return (
      EXISTENCE_IMPLIED_BY.has(lhs.operator) &&
      (lhs.operator !== '$exists' || Boolean(lhs.argument))
    );
  }
  if (rhs.operator === '$in' && Array.isArray(rhs.argument)) {
    return rhs.argument.some((value) =>
      leafImplies(lhs, { path: rhs.path, operator: '$eq', argument: value }),
    );
  }
  return false;
}

/** `a $eq 5` implies `a $gte 3`; only between values of one canonical type (numbers, strings, dates, ...). */
function comparisonImplies(lhs: Leaf, rhs: Leaf): boolean {
  if (lhs.operator === '$in' && Array.isArray(lhs.argument)) {
    return lhs.argument.every((value) =>
      comparisonImplies({ ...lhs, operator: '$eq', argument: value }, rhs),
    );
  }
  if (!COMPARISONS.has(lhs.operator) || !sameCanonicalType(lhs.argument, rhs.argument))
    return false;
  const cmp = compareValues(lhs.argument, rhs.argument);
  if (lhs.operator === rhs.operator && cmp === 0) return true;
  const below = ['$lt', '$lte', '$eq'].includes(lhs.operator);
  const above = ['$gt', '$gte', '$eq'].includes(lhs.operator);
  switch (rhs.operator) {
    case '$lt':
      return below && cmp < 0;
    case '$lte':
      return below && cmp <= 0;
    case '$gt':
      return above && cmp > 0;
    case '$gte':
      return above && cmp >= 0;
    default:
      return false;
  }
}

function sameCanonicalType(a: unknown, b: unknown): boolean {
  return compareValues(typeProbe(a), typeProbe(b)) === 0;
}

/** A value of the same BSON type class that compares equal to every other probe of its class. */
function typeProbe(value: unknown): unknown {
  if (typeof value === 'number') return 0;
  if (typeof value === 'string') return '';
  if (value instanceof Date) return new Date(0);
  if (typeof value === 'boolean') return false;
  if (value === null || value === undefined) return null;
  return value;
}

function sameArgument(a: unknown, b: unknown): boolean {
  return compareValues(a, b) === 0 && typeof a === typeof b;
}
