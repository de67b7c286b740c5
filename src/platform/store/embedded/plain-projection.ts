/**
 * Projections of top-level fields only (`{_id: 0, address: 1, name: 1}`, `{secret: 0}`), applied
 * without mingo, which builds its operator context anew for every projection. MongoDB's rules:
 * an inclusion keeps the named fields and `_id` unless it is excluded; an exclusion drops the
 * named fields. Dotted paths, operators, or a mix of inclusions and exclusions other than `_id`
 * are left to mingo (undefined).
 */
import type { Projection } from '../document-store.js';
import type { StoredDocument } from './stored-document.js';

type Projector = (doc: StoredDocument) => Record<string, unknown>;

export function plainProjector(projection: Projection): Projector | undefined {
  const fields = Object.keys(projection);
  if (fields.some((field) => field === '' || field.includes('.') || field.startsWith('$')))
    return undefined;
  const included = fields.filter((field) => field !== '_id' && projection[field]);
  const excluded = fields.filter((field) => field !== '_id' && !projection[field]);
  if (included.length > 0 && excluded.length > 0) return undefined;
  const keepId = projection._id === undefined || Boolean(projection._id);
  // `{_id: 1}` alone is an inclusion of `_id` only.
  if (included.length > 0 || (excluded.length === 0 && keepId)) {
    const kept = keepId ? ['_id', ...included] : included;
    return (doc) => {
      const out: Record<string, unknown> = {};
      for (const field of kept) if (Object.hasOwn(doc, field)) out[field] = doc[field];
      return out;
    };
  }
  const dropped = keepId ? excluded : ['_id', ...excluded];
  return (doc) => {
    const out: Record<string, unknown> = { ...doc };
    for (const field of dropped) delete out[field];
    return out;
  };
}
