import type { IndexSpec } from '../document-store.js';
import type { Mutation } from './mutation.js';
import type { StoredDocument } from './stored-document.js';
import { Table } from './table.js';

/** The database at one instant, as a snapshot writes it: the indexes, then every document. */
export interface CapturedState {
  readonly indexes: readonly IndexSpec[];
  readonly collections: readonly {
    readonly name: string;
    readonly docs: readonly StoredDocument[];
  }[];
}

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
   * The whole state at this instant: references only, no document copied or encoded, so it
   * is quick (one array of references per collection). Since stored documents are never
   * mutated, the references stay a consistent picture while snapshot.ts writes them out
   * over many turns of the event loop.
   */
  capture(): CapturedState {
    const tables = [...this.tables.entries()];
    return {
      indexes: tables.flatMap(([, table]) => table.indexes()),
      collections: tables.map(([name, table]) => ({ name, docs: Array.from(table.documents()) })),
    };
  }

  ttlIndexes(): IndexSpec[] {
    return [...this.tables.values()].flatMap((table) =>
      table.indexes().filter((spec) => spec.expireAfterSeconds !== undefined),
    );
  }
}
