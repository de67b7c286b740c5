import type { IndexSpec } from '../document-store.js';
import type { Mutation } from './mutation.js';
import type { StoredDocument } from './stored-document.js';
import type { Table } from './table.js';

/** Applies one operation's writes to a table and records them for the journal. */
export class ChangeSet {
  readonly mutations: Mutation[] = [];

  constructor(
    private readonly collection: string,
    readonly table: Table,
  ) {}

  insert(doc: StoredDocument): void {
    this.table.insert(doc);
    this.mutations.push({ op: 'put', c: this.collection, doc });
  }

  /**
   * `next` takes the place of `previous`. When the update says which top-level fields it
   * changed (`changedFields`), only those are journaled (a `patch`); otherwise the whole document.
   */
  replace(previous: StoredDocument, next: StoredDocument, changedFields?: readonly string[]): void {
    this.table.replace(previous, next);
    this.mutations.push(
      changedFields
        ? patchOf(this.collection, next, changedFields)
        : { op: 'put', c: this.collection, doc: next },
    );
  }

  delete(id: string): void {
    if (this.table.delete(id)) this.mutations.push({ op: 'del', c: this.collection, id });
  }

  addIndex(spec: IndexSpec): void {
    if (this.table.addIndex(spec)) this.mutations.push({ op: 'index', spec });
  }
}

function patchOf(
  collection: string,
  next: StoredDocument,
  changedFields: readonly string[],
): Mutation {
  const set: Record<string, unknown> = {};
  const unset: string[] = [];
  for (const field of changedFields) {
    if (Object.hasOwn(next, field)) set[field] = next[field];
    else unset.push(field);
  }
  return { op: 'patch', c: collection, id: next._id, set, unset };
}
