import type { IndexSpec } from '../document-store.js';
import type { StoredDocument } from './stored-document.js';

/**
 * A change to the database state, as journaled and as written in snapshots: the full new
 * version of a document (not the operator that produced it), so replay is idempotent and
 * needs no query evaluation.
 */
export type Mutation =
  | { op: 'put'; c: string; doc: StoredDocument }
  | { op: 'del'; c: string; id: string }
  | { op: 'index'; spec: IndexSpec };
