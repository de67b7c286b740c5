import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { EmbeddedDocumentStore } from '../../../src/platform/store/embedded/embedded-store.js';
import { MongoDocumentStore } from '../../../src/platform/store/mongo/mongo-store.js';
import { silentLogger } from '../../support/silent-logger.js';
import { describeStoreContract } from './store-contract.js';

describeStoreContract('embedded', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'store-contract-'));
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger, ttlSweepIntervalMs: 100 });
  return {
    store,
    ttlGraceMs: 2_000,
    async dispose() {
      await store.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
});

const mongodbUrl = process.env.MONGODB_URL;
if (mongodbUrl) {
  describeStoreContract('mongodb', async () => {
    // A database of its own per run, dropped afterwards.
    const url = new URL(mongodbUrl);
    url.pathname = `/store_contract_${process.pid}_${Date.now()}`;
    const store = await MongoDocumentStore.connect(url.toString());
    return {
      store,
      ttlGraceMs: 130_000, // the server's TTL monitor runs every 60 s
      async dispose() {
        await store.close();
        const admin = new MongoClient(url.toString());
        await admin.db().dropDatabase();
        await admin.close();
      },
    };
  });
} else {
  console.warn('MONGODB_URL is not set: the DocumentStore contract is NOT run against MongoDB.');
  test.skip('DocumentStore contract: mongodb (skipped: MONGODB_URL is not set)', () => {});
}
