import { EJSON } from 'bson';

/**
 * How indexed values become Map keys. Two values get the same key exactly when MongoDB
 * equality treats them as equal, for the types documents here use (strings, numbers,
 * booleans, dates, null; anything else falls back to its canonical EJSON text).
 */
export function keyOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'string':
      return `s${value}`;
    case 'number':
      return `n${Object.is(value, -0) ? 0 : value}`;
    case 'boolean':
      return `b${value}`;
  }
  if (value instanceof Date) return `d${value.getTime()}`;
  return `o${EJSON.stringify(value, { relaxed: false })}`;
}

/** Values a filter may look up through an index (null is excluded: it also matches missing fields). */
function isLookupValue(value: unknown): boolean {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || value instanceof Date;
}

/**
 * The values a filter pins `path` to, when it does so by equality (`v`, `{$eq: v}`,
 * `{$in: [...]}`); undefined when an index cannot narrow the search for this path.
 */
export function equalityValues(
  filter: Record<string, unknown>,
  path: string,
): unknown[] | undefined {
  if (!Object.hasOwn(filter, path)) return undefined;
  const condition = filter[path];
  if (isLookupValue(condition)) return [condition];
  if (typeof condition !== 'object' || condition === null) return undefined;
  const { $eq, $in } = condition as { $eq?: unknown; $in?: unknown };
  if (isLookupValue($eq)) return [$eq];
  if (Array.isArray($in) && $in.every(isLookupValue)) return $in as unknown[];
  return undefined;
}

/**
 * The values a multikey index holds for `path`, which are also the values a query compares
 * (MongoDB semantics): a path through an array reaches into each element, an array at the end
 * contributes its elements, and a missing field (or a dead end) counts as `undefined`. `withArrays` also keeps whole arrays, so that a lookup of an
 * exact array value finds its document too.
 */
export function indexedValues(doc: unknown, path: string, withArrays: boolean): unknown[] {
  const out: unknown[] = [];
  collect(doc, path.split('.'), 0, withArrays, out);
  return out;
}

function collect(
  value: unknown,
  parts: string[],
  depth: number,
  withArrays: boolean,
  out: unknown[],
): void {
  const part = parts[depth];
  if (part === undefined) {
    if (!Array.isArray(value)) {
      out.push(value);
      return;
    }
    if (withArrays) out.push(value);
    if (value.length === 0 && !withArrays) out.push(undefined);
    out.push(...(value as unknown[]));
    return;
  }
  if (Array.isArray(value)) {
    // A numeric part addresses an element AND names a field searched for in every element
    // (src/mongo/db/matcher/path.cpp): `a.0.b` over `[{b: 1}, {c: 2}]` reaches 1 and, from
    // elements without a field "0", missing. An empty array on the way is missing too.
    if (/^\d+$/.test(part)) collect(value[Number(part)], parts, depth + 1, withArrays, out);
    if (value.length === 0) out.push(undefined);
    for (const element of value) collect(element, parts, depth, withArrays, out);
    return;
  }
  if (typeof value !== 'object' || value === null) {
    out.push(undefined);
    return;
  }
  collect((value as Record<string, unknown>)[part], parts, depth + 1, withArrays, out);
}

/** The top-level field a dotted path starts in. */
export function topField(path: string): string {
  const dot = path.indexOf('.');
  return dot < 0 ? path : path.slice(0, dot);
}

/** What every kind of index says of itself: the top-level fields its entries derive from (undefined: cannot be told). */
export interface IndexReads {
  readonly reads: readonly string[] | undefined;
}

/**
 * Whether replacing `previous` by `next` leaves an index's entries as they are: both hold the
 * same values in every field it reads. Compared by identity, which is exact here because stored
 * documents are never mutated, and an update that leaves a field alone shares its value with the
 * document it replaces. A new document (no `previous`) always needs its entries.
 */
export function leavesAlone(
  index: IndexReads,
  previous: Record<string, unknown> | undefined,
  next: Record<string, unknown>,
): boolean {
  if (!previous || !index.reads) return false;
  for (const field of index.reads) if (previous[field] !== next[field]) return false;
  return true;
}

/** The top-level fields a partial filter reads, or undefined for an operator not looked into. */
export function partialFilterReads(expression: Record<string, unknown>): string[] | undefined {
  const fields: string[] = [];
  for (const [key, condition] of Object.entries(expression)) {
    if (key === '$and' || key === '$or' || key === '$nor') {
      for (const clause of condition as Record<string, unknown>[]) {
        const inner = partialFilterReads(clause);
        if (!inner) return undefined;
        fields.push(...inner);
      }
    } else if (key.startsWith('$')) return undefined;
    else fields.push(topField(key));
  }
  return fields;
}
