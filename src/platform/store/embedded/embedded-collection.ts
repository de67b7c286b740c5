import type {
  Collection,
  DeleteResult,
  Document,
  FindOneAndDeleteOptions,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  NewDocument,
  StoreFilter,
  StoreUpdate,
  UpdateOptions,
  UpdateResult,
} from '../document-store.js';
import { newId } from '../new-id.js';
import type { ChangeSet } from './change-set.js';
import { cloneDocument } from './clone-value.js';
import { compileUpdate } from './compile-update.js';
import { countDocuments, project, selectDocuments } from './select.js';
import type { StoredDocument } from './stored-document.js';
import type { Table } from './table.js';

/** What a collection needs from the store that owns it. */
export interface CollectionHost {
  read(collection: string): Table;
  /** Runs `change` synchronously (so checks and writes are atomic) and resolves once it is durable. */
  write<R>(collection: string, change: (changes: ChangeSet) => R): Promise<R>;
}

type Raw = Record<string, unknown>;

/**
 * The port over the in-memory tables. Everything that enters is copied (`cloneDocument`)
 * and everything that leaves is a copy, so callers never share objects with the store.
 */
export class EmbeddedCollection<T extends Document> implements Collection<T> {
  constructor(
    private readonly name: string,
    private readonly host: CollectionHost,
  ) {}

  async findOne(filter: StoreFilter<T>, options: FindOneOptions = {}): Promise<T | null> {
    const [doc] = await this.find(filter, { ...options, limit: 1 });
    return doc ?? null;
  }

  async find(filter: StoreFilter<T>, options: FindOptions = {}): Promise<T[]> {
    const docs = selectDocuments(this.host.read(this.name), filter, options);
    return project(docs, options.projection).map((doc) => cloneDocument(doc) as T);
  }

  async countDocuments(filter: StoreFilter<T>): Promise<number> {
    return countDocuments(this.host.read(this.name), filter);
  }

  async insertOne(doc: NewDocument<T>): Promise<string> {
    return this.host.write(this.name, (changes) => insert(changes, doc));
  }

  async insertMany(docs: NewDocument<T>[]): Promise<string[]> {
    return this.host.write(this.name, (changes) => docs.map((doc) => insert(changes, doc)));
  }

  async updateOne(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    return this.update(filter, update, options, 1);
  }

  async updateMany(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    return this.update(filter, update, options, 0);
  }

  async findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    const compiled = compileUpdate(update);
    const returned = await this.host.write(this.name, (changes) => {
      const [match] = selectDocuments(changes.table, filter, { sort: options.sort, limit: 1 });
      if (match) {
        const { doc, modified, changedFields } = compiled.applyTo(match, filter);
        if (modified) changes.replace(match, doc, changedFields);
        return options.returnDocument === 'after' ? doc : match;
      }
      if (!options.upsert) return null;
      const doc = compiled.insertFor(filter);
      changes.insert(doc);
      return options.returnDocument === 'after' ? doc : null;
    });
    return this.output(returned, options.projection);
  }

  async findOneAndDelete(
    filter: StoreFilter<T>,
    options: FindOneAndDeleteOptions = {},
  ): Promise<T | null> {
    const deleted = await this.host.write(this.name, (changes) => {
      const [match] = selectDocuments(changes.table, filter, { sort: options.sort, limit: 1 });
      if (match) changes.delete(match._id);
      return match ?? null;
    });
    return this.output(deleted, options.projection);
  }

  async deleteOne(filter: StoreFilter<T>): Promise<DeleteResult> {
    return this.delete(filter, 1);
  }

  async deleteMany(filter: StoreFilter<T>): Promise<DeleteResult> {
    return this.delete(filter, 0);
  }

  /** `limit` 1 for the *One variants, 0 for all matches. */
  private async update(
    filter: Raw,
    update: Raw,
    options: UpdateOptions,
    limit: number,
  ): Promise<UpdateResult> {
    const compiled = compileUpdate(update);
    return this.host.write(this.name, (changes): UpdateResult => {
      const matches = selectDocuments(changes.table, filter, { limit });
      if (matches.length === 0 && options.upsert) {
        const doc = compiled.insertFor(filter);
        changes.insert(doc);
        return { matchedCount: 0, modifiedCount: 0, upsertedId: doc._id };
      }
      let modifiedCount = 0;
      for (const match of matches) {
        const { doc, modified, changedFields } = compiled.applyTo(match, filter);
        if (modified) {
          changes.replace(match, doc, changedFields);
          modifiedCount += 1;
        }
      }
      return { matchedCount: matches.length, modifiedCount };
    });
  }

  private async delete(filter: Raw, limit: number): Promise<DeleteResult> {
    return this.host.write(this.name, (changes) => {
      const matches = selectDocuments(changes.table, filter, { limit });
      for (const match of matches) changes.delete(match._id);
      return { deletedCount: matches.length };
    });
  }

  private output(doc: StoredDocument | null, projection: FindOneOptions['projection']): T | null {
    if (!doc) return null;
    const [projected] = project([doc], projection);
    return cloneDocument(projected) as T;
  }
}

function insert(changes: ChangeSet, doc: object): string {
  const { _id, ...fields } = cloneDocument(doc as Raw);
  if (_id != null && typeof _id !== 'string') throw new TypeError('_id must be a string');
  const stored = { _id: _id ?? newId(), ...fields };
  changes.insert(stored);
  return stored._id;
}
