/**
 * The store engines a test runs on: the embedded engine always, MongoDB when MONGODB_URL is
 * set (each run in a database of its own, dropped afterwards). Without MONGODB_URL the MongoDB
 * half is skipped, and says so, so a green run here never reads as "checked on MongoDB".
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { ConnectionString } from 'mongodb-connection-string-url';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { MongoDocumentStore } from '../../src/platform/store/mongo/mongo-store.js';
import { silentLogger } from './silent-logger.js';

export interface StoreUnderTest {
  store: DocumentStore;
  /** Longest time an expired document may stay visible (MongoDB's TTL monitor runs every 60 s). */
  ttlGraceMs: number;
  /** Releases the store and anything the factory created for it. */
  dispose(): Promise<void>;
}

export type OpenStore = () => Promise<StoreUnderTest>;

export async function openEmbeddedStore(): Promise<StoreUnderTest> {
  const dataDir = await mkdtemp(join(tmpdir(), 'store-under-test-'));
  const store = await EmbeddedDocumentStore.open({
    dataDir,
    logger: silentLogger,
    ttlSweepIntervalMs: 100,
  });
  return {
    store,
    ttlGraceMs: 2_000,
    async dispose() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

export async function openMongoStore(mongodbUrl: string, purpose: string): Promise<StoreUnderTest> {
  const url = withDatabase(mongodbUrl, `${purpose}_${process.pid}_${Date.now()}`);
  const store = await MongoDocumentStore.connect(url, {
    allowStandalone: process.env.MONGODB_ALLOW_STANDALONE === 'true',
  });
  return {
    store,
    ttlGraceMs: 130_000, // the server's TTL monitor runs every 60 s
    async dispose() {
      await store.close();
      const admin = new MongoClient(url);
      await admin.db().dropDatabase();
      await admin.close();
    },
  };
}

/** The same connection string (every host, every option) naming another database. */
export function withDatabase(mongodbUrl: string, database: string): string {
  const url = new ConnectionString(mongodbUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/**
 * Defines the suite once per engine: `define(engine, open)`. `purpose` names the MongoDB
 * databases the run makes.
 */
export function forEachStore(
  purpose: string,
  define: (engine: string, open: OpenStore) => void,
): void {
  define('embedded', openEmbeddedStore);
  const mongodbUrl = process.env.MONGODB_URL;
  if (mongodbUrl) {
    define('mongodb', () => openMongoStore(mongodbUrl, purpose));
  } else {
    console.warn(
      `MONGODB_URL is not set: ${purpose} is NOT run against MongoDB (only the embedded engine).`,
    );
    test.skip(`${purpose} on MongoDB (skipped: MONGODB_URL is not set)`, () => {});
  }
}
