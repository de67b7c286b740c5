/**
 * The single-use take of one-time prekeys, on each storage engine: the embedded one always,
 * MongoDB when MONGODB_URL is set (skipped, and said so, otherwise). Many more concurrent
 * takes than keys: every key goes to exactly one taker, the rest get none.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MongoClient } from 'mongodb';
import { OneTimePreKeys, oneTimePreKeyIndexes } from '../../src/keys/store/one-time-prekeys.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { MongoDocumentStore } from '../../src/platform/store/mongo/mongo-store.js';
import { oneTimePreKeys } from '../support/key-bundles.js';
import { silentLogger } from '../support/silent-logger.js';

interface Engine {
  store: DocumentStore;
  dispose(): Promise<void>;
}

const engines: [string, () => Promise<Engine>][] = [
  [
    'embedded',
    async () => {
      const dataDir = await mkdtemp(join(tmpdir(), 'prekeys-'));
      const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
      return {
        store,
        dispose: async () => (
          await store.close(),
          await rm(dataDir, { recursive: true, force: true })
        ),
      };
    },
  ],
];
const mongodbUrl = process.env.MONGODB_URL;
if (mongodbUrl) {
  engines.push([
    'mongodb',
    async () => {
      const url = new URL(mongodbUrl);
      url.pathname = `/prekeys_${process.pid}_${Date.now()}`;
      const store = await MongoDocumentStore.connect(url.toString());
      return {
        store,
        async dispose() {
          await store.close();
          const admin = new MongoClient(url.toString());
          await admin.db().dropDatabase();
          await admin.close();
        },
      };
    },
  ]);
} else {
  console.warn('MONGODB_URL is not set: the one-time prekey take is NOT run against MongoDB.');
  test.skip('one-time prekeys on mongodb (skipped: MONGODB_URL is not set)', () => {});
}

describe.each(engines)('one-time prekeys on %s', (_name, open) => {
  let engine: Engine;
  let prekeys: OneTimePreKeys;
  beforeAll(async () => {
    engine = await open();
    await engine.store.ensureIndexes(oneTimePreKeyIndexes);
    prekeys = new OneTimePreKeys(engine.store);
  });
  afterAll(() => engine.dispose());

  it('hands each key to exactly one of 300 concurrent takers', async () => {
    const keys = oneTimePreKeys(100, 1);
    await prekeys.replace('0xowner', keys);
    const taken = await Promise.all(Array.from({ length: 300 }, () => prekeys.take('0xowner')));
    const given = taken.filter((key) => key !== undefined);
    expect(given).toHaveLength(100);
    expect(new Set(given.map((key) => key.keyId)).size).toBe(100);
    expect(await prekeys.count('0xowner')).toBe(0);
  });

  it("keeps each owner's keys apart", async () => {
    await prekeys.replace('0xa', oneTimePreKeys(2, 1));
    await prekeys.replace('0xb', oneTimePreKeys(1, 1));
    expect((await prekeys.take('0xb'))?.keyId).toBe(1);
    expect(await prekeys.take('0xb')).toBeUndefined();
    expect(await prekeys.count('0xa')).toBe(2);
  });
});
