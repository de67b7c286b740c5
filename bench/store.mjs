// Embedded store write throughput: one write in flight at a time costs one fdatasync per
// write; many writes in flight share fdatasyncs (group commit). Durable writes only: each
// insert resolves after its journal record is on disk.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDocumentStore } from '../dist/platform/store/embedded/embedded-store.js';
import { printTable } from './support.mjs';

const silent = { info() {}, warn() {}, error() {} };
const row = (n) => ({ n, body: 'b'.repeat(200), at: new Date() });

export async function benchStore() {
  const dataDir = await mkdtemp(join(tmpdir(), 'store-bench-'));
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silent });
  const rows = store.collection('rows');
  const results = {};
  for (const [inFlight, total] of [[1, 1_000], [16, 10_000], [64, 20_000], [256, 20_000]]) {
    let next = 0;
    const startedAt = performance.now();
    await Promise.all(Array.from({ length: inFlight }, async () => {
      while (next < total) await rows.insertOne(row(next++));
    }));
    const seconds = (performance.now() - startedAt) / 1000;
    results[`${inFlight} in flight`] = { inserts: total, seconds: Number(seconds.toFixed(2)), writesPerSecond: Math.round(total / seconds) };
  }
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
  printTable('Embedded store: durable inserts (200-byte documents)', results);
}
