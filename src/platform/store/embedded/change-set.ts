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

  replace(previous: StoredDocument, next: StoredDocument): void {
    this.table.replace(previous, next);
    this.mutations.push({ op: 'put', c: this.collection, doc: next });
  }

  delete(id: string): void {
    if (this.table.delete(id)) this.mutations.push({ op: 'del', c: this.collection, id });
  }

  addIndex(spec: IndexSpec): void {
    if (this.table.addIndex(spec)) this.mutations.push({ op: 'index', spec });
  }
}
