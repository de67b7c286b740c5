/**
 * Which index MongoDB's planner could answer a query with (QueryPlannerIXSelect): an index is
 * a candidate when the query has a predicate on its leading field or sorts by it, and, for a
 * partial index, when the query implies the index's filter. The embedded engine answers
 * `explain` with it, so a query no MongoDB index can serve fails the same test here as on a
 * server (test/platform/store/hot-queries.test.ts).
 */
import type { IndexSpec, QueryPlan, SortSpec } from '../document-store.js';
import { isOperatorObject } from '../operator-object.js';
import { impliesPartialFilter } from './partial-filter-implication.js';

/** Predicates the planner cannot turn into index bounds. */
const UNINDEXABLE = new Set(['$size', '$where', '$expr']);

export function planQuery(
  indexes: IndexSpec[],
  filter: Record<string, unknown>,
  sort: SortSpec | undefined,
): QueryPlan {
  const usable = indexes.filter((spec) => canUse(spec, filter, sort)).map((spec) => spec.name);
  if (usable.length > 0) return { stage: 'IXSCAN', indexes: usable.slice(0, 1) };
  // A top-level $or is answered by an index per clause, or not at all.
  const clauses = Array.isArray(filter.$or) ? (filter.$or as Record<string, unknown>[]) : [];
  const perClause = clauses.map((clause) => planQuery(indexes, clause, undefined));
  if (perClause.length > 0 && perClause.every((plan) => plan.stage === 'IXSCAN')) {
    return { stage: 'IXSCAN', indexes: [...new Set(perClause.flatMap((plan) => plan.indexes))] };
  }
  return { stage: 'COLLSCAN', indexes: [] };
}

function canUse(
  spec: IndexSpec,
  filter: Record<string, unknown>,
  sort: SortSpec | undefined,
): boolean {
  if (spec.partialFilterExpression && !impliesPartialFilter(filter, spec.partialFilterExpression))
    return false;
  const leading = Object.keys(spec.key)[0] as string;
  return constrains(filter, leading) || (sort !== undefined && Object.keys(sort)[0] === leading);
}

/** A predicate of the top-level conjunction (also inside `$and`) bounds `path`. */
function constrains(filter: Record<string, unknown>, path: string): boolean {
  return Object.entries(filter).some(([key, condition]) => {
    if (key === '$and' && Array.isArray(condition))
      return condition.some((clause) => constrains(clause as Record<string, unknown>, path));
    if (key === path)
      return (
        !isOperatorObject(condition) ||
        Object.keys(condition).some((operator) => !UNINDEXABLE.has(operator))
      );
    // `{a: {$elemMatch: {b: ...}}}` bounds an index on `a.b`.
    const elemMatch = isOperatorObject(condition) ? condition.$elemMatch : undefined;
    return (
      path.startsWith(`${key}.`) &&
      typeof elemMatch === 'object' &&
      elemMatch !== null &&
      constrains(elemMatch as Record<string, unknown>, path.slice(key.length + 1))
    );
  });
}
