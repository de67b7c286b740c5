import { type CreateIndexesOptions, type Db, MongoClient } from 'mongodb';
import { parseMongoConnectionString } from '../../config/mongo-connection-string.js';
import type {
  Collection,
  Document,
  DocumentStore,
  IndexSpec,
  QueryPlan,
  SortSpec,
} from '../document-store.js';
import { checkIndexSpec } from '../index-spec-rules.js';
import { planFromExplain } from './explain-plan.js';
import { mapIndexConflict } from './map-mongo-error.js';
import { MONGO_CLIENT_OPTIONS } from './mongo-client-options.js';
import { MongoCollection, type RawDocument } from './mongo-collection.js';

export interface MongoConnectOptions {
  /** MONGODB_ALLOW_STANDALONE: accept a server that is not a replica-set member (development only). */
  allowStandalone?: boolean;
}

/** The production store: the official driver against `MONGODB_URL` (database from the URL). */
export class MongoDocumentStore implements DocumentStore {
  private constructor(
    private readonly client: MongoClient,
    private readonly db: Db,
  ) {}

  static async connect(
    url: string,
    options: MongoConnectOptions = {},
  ): Promise<MongoDocumentStore> {
    const { database } = parseMongoConnectionString(url);
    const client = new MongoClient(url, MONGO_CLIENT_OPTIONS);
    await client.connect();
    try {
      const db = client.db(database);
      await refuseStandalone(db, options.allowStandalone ?? false);
      return new MongoDocumentStore(client, db);
    } catch (err) {
      await client.close();
      throw err;
    }
  }

  collection<T extends Document>(name: string): Collection<T> {
    return new MongoCollection<T>(this.db.collection<RawDocument>(name));
  }

  /** createIndex is a no-op on the server when the same index already exists. */
  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const spec of indexes) {
      checkIndexSpec(spec);
      await mapIndexConflict(spec, () =>
        this.db.collection(spec.collection).createIndex(spec.key, indexOptions(spec)),
      );
    }
  }

  async explain(
    collection: string,
    filter: Record<string, unknown>,
    options: { sort?: SortSpec } = {},
  ): Promise<QueryPlan> {
    const explained = await this.db
      .collection(collection)
      .find(filter, { sort: options.sort })
      .explain('queryPlanner');
    return planFromExplain(explained);
  }

  async ping(): Promise<void> {
    await this.db.command({ ping: 1 });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

/**
 * Majority write concern, retryable writes and failover need a replica set (or a sharded
 * cluster, whose mongos answers `msg: 'isdbgrid'`); a standalone server gives none of them.
 */
async function refuseStandalone(db: Db, allowStandalone: boolean): Promise<void> {
  const hello = await db.command({ hello: 1 });
  if (hello.setName || hello.msg === 'isdbgrid' || allowStandalone) return;
  throw new Error(
    'MONGODB_URL reaches a standalone MongoDB server, not a replica set: writes could not be acknowledged by a majority ' +
      'and nothing survives the loss of that server. Use a replica set (a single-member one will do for tests), ' +
      'or set MONGODB_ALLOW_STANDALONE=true for development.',
  );
}

/** Only the options the spec sets: an explicit `undefined` would reach the server as null. */
function indexOptions(spec: IndexSpec): CreateIndexesOptions {
  const options: CreateIndexesOptions = { name: spec.name };
  if (spec.unique !== undefined) options.unique = spec.unique;
  if (spec.expireAfterSeconds !== undefined) options.expireAfterSeconds = spec.expireAfterSeconds;
  if (spec.partialFilterExpression !== undefined)
    options.partialFilterExpression = spec.partialFilterExpression;
  return options;
}
