/**
 * Filters compiled for mingo, with MongoDB's path semantics where mingo's differ. mingo reads
 * `a.b` over an array only from the elements that have `b`, and `a.0.b` only from element 0;
 * MongoDB also reaches a missing value from every element without `b` (or without a field
 * named "0"), and missing matches null (jstests/core/query/null_query_semantics.js). So
 * `{'codes.3.usedAt': null}` matches every document whose codes lack a field "3", which is
 * all of them: a guard written that way guards nothing on MongoDB, and must guard nothing here.
 *
 * Conditions on such paths are handed to one added query operator that walks the path as
 * MongoDB does (`indexedValues`) and asks mingo about each value it reaches; everything else
 * stays with mingo.
 */
import { Context, Query } from 'mingo';
import type { QueryOperator } from 'mingo/types';
import { isOperatorObject } from '../operator-object.js';
import { compilePlainFilter } from './plain-filter.js';
import type { DocumentPredicate } from './plain-filter.js';
import { indexedValues } from './index-keys.js';

const MONGO_PATH = '$mongoPath';
const LOGICAL = new Set(['$and', '$or', '$nor']);
const NEGATIONS: Record<string, string> = { $ne: '$eq', $nin: '$in' };

const mongoPath: QueryOperator = (path: string, condition: unknown, _options: unknown) =>
  pathPredicate(path, condition);
const context = Context.init({ query: { [MONGO_PATH]: mongoPath } });

/** Plain filters skip mingo (plain-filter.ts); the rest are compiled by it. */
export function compileFilter(filter: Record<string, unknown>): DocumentPredicate {
  return compilePlainFilter(filter) ?? new Query(rewrite(filter), { context });
}

function rewrite(filter: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, condition] of Object.entries(filter)) {
    if (LOGICAL.has(key) && Array.isArray(condition))
      out[key] = condition.map((clause) => rewrite(clause as Record<string, unknown>));
    else if (!key.startsWith('$') && needsMongoPaths(key, condition))
      out[key] = { [MONGO_PATH]: condition };
    else out[key] = condition;
  }
  return out;
}

/** Paths where mingo and MongoDB can disagree: a numeric step, or a dotted path compared with null. */
function needsMongoPaths(path: string, condition: unknown): boolean {
  if (!path.includes('.')) return false;
  if (path.split('.').some((part) => /^\d+$/.test(part))) return true;
  if (condition === null) return true;
  if (!isOperatorObject(condition)) return false;
  const { $eq, $ne, $in, $nin } = condition;
  return (
    $eq === null ||
    $ne === null ||
    (Array.isArray($in) && $in.includes(null)) ||
    (Array.isArray($nin) && $nin.includes(null))
  );
}

type ValuePredicate = (values: unknown[]) => boolean;

function pathPredicate(path: string, condition: unknown): (doc: unknown) => boolean {
  const matches = conditionPredicate(condition);
  return (doc) => matches(indexedValues(doc, path, true));
}

/**
 * A condition's operators each hold for some reached value (MongoDB tests `{$gt: 1, $lt: 5}`
 * element by element, not on one element); a negation holds when its positive form holds
 * for none.
 */
function conditionPredicate(condition: unknown): ValuePredicate {
  if (!isOperatorObject(condition)) return anyValue('$eq', condition);
  const { $options, ...operators } = condition;
  const predicates = Object.entries(operators).map(([operator, argument]): ValuePredicate => {
    if (operator === '$regex') return anyValue(operator, argument, $options);
    if (operator === '$exists')
      return (values) => values.some((value) => value !== undefined) === Boolean(argument);
    if (operator === '$not') {
      const inner = conditionPredicate(
        argument instanceof RegExp ? { $regex: argument } : argument,
      );
      return (values) => !inner(values);
    }
    const positive = NEGATIONS[operator];
    if (positive) {
      const inner = anyValue(positive, argument);
      return (values) => !inner(values);
    }
    return anyValue(operator, argument);
  });
  return (values) => predicates.every((predicate) => predicate(values));
}

/** mingo answers for one value at a time; a missing value is a missing field, so null matches it. */
function anyValue(operator: string, argument: unknown, options?: unknown): ValuePredicate {
  const query = new Query(
    {
      v:
        options === undefined
          ? { [operator]: argument }
          : { [operator]: argument, $options: options },
    },
    {},
  );
  return (values) => values.some((value) => query.test(value === undefined ? {} : { v: value }));
}
