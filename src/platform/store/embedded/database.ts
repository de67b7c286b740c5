import type { IndexSpec } from '../document-store.js';
import type { Mutation } from './mutation.js';
import { Table } from './table.js';

/** All collections of the embedded engine, in memory. */
export class Database {
  private readonly tables = new Map<string, Table>();

  /** Collections exist as soon as they are named, as in MongoDB. */
  table(name: string): Table {
    let table = this.tables.get(name);
    if (!table) this.tables.set(name, (table = new Table()));
    return table;
  }

  /** Replays a mutation read back from a snapshot or the journal. */
  apply(mutation: Mutation): void {
    switch (mutation.op) {
      case 'put':
        this.table(mutation.c).put(mutation.doc);
        return;
      case 'patch':
        this.table(mutation.c).patch(mutation.id, mutation.set, mutation.unset);
        return;
      case 'del':
        this.table(mutation.c).delete(mutation.id);
        return;
      case 'index':
        this.table(mutation.spec.collection).addIndex(mutation.spec);
        return;
    }
  }

  /**
   * The whole state as mutations (indexes first). Taken synchronously: since stored
   * documents are never mutated, the references stay a consistent picture while they
   * are written out asynchronously.
   */
  capture(): Mutation[] {
    const tables = [...this.tables.entries()];
    const indexes = tables.flatMap(([, table]) =>
      table.indexes().map((spec): Mutation => ({ op: 'index', spec })),
    );
    const docs = tables.flatMap(([c, table]) =>
      [...table.documents()].map((doc): Mutation => ({ op: 'put', c, doc })),
    );
    return [...indexes, ...docs];
  }

  ttlIndexes(): IndexSpec[] {
    return [...this.tables.values()].flatMap((table) =>
      table.indexes().filter((spec) => spec.expireAfterSeconds !== undefined),
    );
  }
}
