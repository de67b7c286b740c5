/**
 * What MongoDB refuses in an index declaration, checked before either engine builds one, so a
 * declaration the server would refuse (or, on older servers, silently not honour) fails the
 * same way on the embedded engine and in tests.
 */
import type { IndexSpec } from './document-store.js';
import { isOperatorObject } from './operator-object.js';
import { refused } from './store-command-error.js';

/** The operators MongoDB 6.0+ accepts in a partialFilterExpression (docs: "Partial Indexes"). */
const PARTIAL_FILTER_OPERATORS = new Set([
  '$eq',
  '$gt',
  '$gte',
  '$lt',
  '$lte',
  '$type',
  '$exists',
  '$in',
]);

export function checkIndexSpec(spec: IndexSpec): void {
  const fields = Object.keys(spec.key);
  if (spec.expireAfterSeconds !== undefined) {
    // MongoDB refuses with 67 CannotCreateIndex (before 5.0 it accepted and never expired anything).
    if (fields.length !== 1) {
      throw refused(
        'CannotCreateIndex',
        `TTL indexes are single-field indexes, compound indexes do not support TTL (${spec.name})`,
      );
    }
    // 197 InvalidIndexSpecificationOption: documents would never expire by their _id.
    if (fields[0] === '_id') {
      throw refused(
        'InvalidIndexSpecificationOption',
        `The field 'expireAfterSeconds' is not valid for an _id index specification (${spec.name})`,
      );
    }
  }
  if (spec.partialFilterExpression !== undefined)
    checkPartialFilter(spec.partialFilterExpression, spec.name);
}

/**
 * Equality, $exists: true, $gt/$gte/$lt/$lte, $type, $in, and $and/$or of those; anything else
 * ($ne, $nin, $not, $exists: false, $regex, ...) is 67 CannotCreateIndex
 * ("Expression not supported in partial index").
 */
function checkPartialFilter(filter: Record<string, unknown>, index: string): void {
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '$and' || path === '$or') {
      if (!Array.isArray(condition)) throw unsupported(path, index);
      for (const clause of condition) checkPartialFilter(clause as Record<string, unknown>, index);
      continue;
    }
    if (path.startsWith('$')) throw unsupported(path, index);
    if (!isOperatorObject(condition)) {
      if (condition instanceof RegExp) throw unsupported('$regex', index);
      continue;
    }
    for (const [operator, argument] of Object.entries(condition)) {
      if (!PARTIAL_FILTER_OPERATORS.has(operator))
        throw unsupported(operator === '$ne' || operator === '$nin' ? '$not' : operator, index);
      if (operator === '$exists' && !argument) throw unsupported('$not $exists', index);
    }
  }
}

function unsupported(expression: string, index: string) {
  return refused(
    'CannotCreateIndex',
    `Expression not supported in partial index: ${expression} (${index})`,
  );
}
