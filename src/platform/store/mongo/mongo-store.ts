import { type CreateIndexesOptions, type Db, MongoClient } from 'mongodb';
import type { Collection, Document, DocumentStore, IndexSpec } from '../document-store.js';
import { mapMongoError } from './map-mongo-error.js';
import { MongoCollection, type RawDocument } from './mongo-collection.js';

/** The production store: the official driver against `MONGODB_URL` (database from the URL). */
export class MongoDocumentStore implements DocumentStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  static async connect(url: string): Promise<MongoDocumentStore> {
    const client = new MongoClient(url);
    await client.connect();
    return new MongoDocumentStore(client, client.db());
  }

  collection<T extends Document>(name: string): Collection<T> {
    return new MongoCollection<T>(this.db.collection<RawDocument>(name));
  }

  /** createIndex is a no-op on the server when the same index already exists. */
  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const spec of indexes) {
      await mapMongoError(() => this.db.collection(spec.collection).createIndex(spec.key, indexOptions(spec)));
    }
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/** Only the options the spec sets: an explicit `undefined` would reach the server as null. */
function indexOptions(spec: IndexSpec): CreateIndexesOptions {
  const options: CreateIndexesOptions = { name: spec.name };
  if (spec.unique !== undefined) options.unique = spec.unique;
  if (spec.expireAfterSeconds !== undefined) options.expireAfterSeconds = spec.expireAfterSeconds;
  if (spec.partialFilterExpression !== undefined) options.partialFilterExpression = spec.partialFilterExpression;
  return options;
}
