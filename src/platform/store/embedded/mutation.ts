import type { IndexSpec } from '../document-store.js';
import type { StoredDocument } from './stored-document.js';

/**
 * A change to the database state, as journaled and as written in snapshots: the full new
 * version of a document (not the operator that produced it), so replay is idempotent and
 * needs no query evaluation. An update that changed only top-level fields is journaled as
 * `patch`, those fields' new values and the fields it removed: a mark on a large document
 * (a message's `unannounced`, a chat's `activityAt`) then costs the journal a few bytes
 * instead of the whole document again. Snapshots hold only `put`, `index`.
 */
export type Mutation =
  | { op: 'put'; c: string; doc: StoredDocument }
  | { op: 'patch'; c: string; id: string; set: Record<string, unknown>; unset: string[] }
  | { op: 'del'; c: string; id: string }
  | { op: 'index'; spec: IndexSpec };
