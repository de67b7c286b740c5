import { Query } from 'mingo';
import type { FindOptions, Projection } from '../document-store.js';
import type { StoredDocument } from './stored-document.js';
import { compileFilter } from './filter-query.js';
import { plainProjector } from './plain-projection.js';
import { sortDocuments } from './sort-order.js';
import type { Table } from './table.js';

/**
 * Matching documents in MongoDB order of operations: filter, sort, skip, limit. Returns the
 * stored objects themselves; callers copy (or project) before handing anything out.
 */
export function selectDocuments(
  table: Table,
  filter: Record<string, unknown>,
  options: Omit<FindOptions, 'projection'> = {},
): StoredDocument[] {
  const byId = byIdOnly(table, filter);
  if (byId && !options.skip) return byId;
  const query = compileFilter(filter);
  const unlimited = options.sort || options.skip || !options.limit; // 0 means "no limit", as in MongoDB
  const matches: StoredDocument[] = [];
  for (const doc of table.candidates(filter)) {
    if (!query.test(doc)) continue;
    matches.push(doc);
    if (!unlimited && matches.length === options.limit) break;
  }
  const ordered = options.sort ? sortDocuments(matches, options.sort) : matches;
  const start = options.skip ?? 0;
  return ordered.slice(start, options.limit ? start + options.limit : undefined);
}

export function countDocuments(table: Table, filter: Record<string, unknown>): number {
  const byId = byIdOnly(table, filter);
  if (byId) return byId.length;
  const query = compileFilter(filter);
  let count = 0;
  for (const doc of table.candidates(filter)) if (query.test(doc)) count += 1;
  return count;
}

/**
 * `{_id: 'x'}` alone (the commonest filter) needs no query evaluation: the lookup is the
 * answer. Worth it because mingo builds its operator context anew for every query.
 */
function byIdOnly(table: Table, filter: Record<string, unknown>): StoredDocument[] | undefined {
  const id = filter._id;
  if (typeof id !== 'string' || Object.keys(filter).length !== 1) return undefined;
  const doc = table.get(id);
  return doc ? [doc] : [];
}

/** MongoDB projection semantics (inclusion or exclusion, `_id` kept unless excluded). */
export function project(
  docs: StoredDocument[],
  projection: Projection | undefined,
): Record<string, unknown>[] {
  if (!projection || Object.keys(projection).length === 0) return docs;
  const plain = plainProjector(projection);
  if (plain) return docs.map(plain);
  return new Query({}, {}).find<Record<string, unknown>>(docs, projection).all();
}
