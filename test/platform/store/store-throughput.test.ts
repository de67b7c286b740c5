/**
 * Prints (never asserts) the embedded engine's write throughput: one write in flight at a
 * time costs one fdatasync per write; many in flight share fdatasyncs (group commit).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDocumentStore } from '../../../src/platform/store/embedded/embedded-store.js';
import { silentLogger } from '../../support/silent-logger.js';

interface Row {
  _id?: string;
  n: number;
  body: string;
  at: Date;
}

let dataDir: string;
let store: EmbeddedDocumentStore;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-throughput-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
});
afterAll(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const row = (n: number): Row => ({ n, body: 'b'.repeat(200), at: new Date() });

function report(label: string, writes: number, startedAt: number): void {
  const seconds = (performance.now() - startedAt) / 1000;
  console.log(`${label}: ${writes} inserts in ${seconds.toFixed(2)} s = ${Math.round(writes / seconds)} writes/s`);
}

test('throughput: one fdatasync per write vs group commit', async () => {
  const rows = store.collection<Row & { _id: string }>('rows');

  const sequential = 500;
  let startedAt = performance.now();
  for (let i = 0; i < sequential; i += 1) await rows.insertOne(row(i));
  report('1 in flight (one fdatasync per write)', sequential, startedAt);

  for (const inFlight of [16, 64, 256]) {
    const total = 10_000;
    let next = 0;
    startedAt = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < total) await rows.insertOne(row(next++));
      }),
    );
    report(`${inFlight} in flight (group commit)`, total, startedAt);
  }

  expect(await rows.countDocuments({})).toBe(sequential + 30_000);
}, 120_000);
