/**
 * kill -9 while writing: every write the child saw acknowledged must be there after a
 * restart, with one write in flight at a time (one fsync each) and with many (group commit).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { EmbeddedDocumentStore } from '../../../src/platform/store/embedded/embedded-store.js';
import { builtModule } from '../../support/built-service.js';
import { silentLogger } from '../../support/silent-logger.js';

const writer = fileURLToPath(new URL('./crash-writer.mjs', import.meta.url));

interface Acknowledged {
  inserts: string[];
  /** Highest acknowledged `last` per counter document. */
  counters: Map<string, number>;
}

const openStorePath = builtModule('platform/store/open-store.js');
let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-crash-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs the writer until `killAfter` acknowledgements, then SIGKILLs it mid-stream. */
function runAndKill(run: string, inFlight: number, killAfter: number): Promise<Acknowledged> {
  const child = spawn(process.execPath, [writer, openStorePath, dataDir, String(inFlight), run], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const acknowledged: Acknowledged = { inserts: [], counters: new Map() };
  let seen = 0;
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [kind, a, b] = line.split(' ');
    if (kind === 'i') acknowledged.inserts.push(a!);
    if (kind === 'u')
      acknowledged.counters.set(
        `c${a}`,
        Math.max(Number(b), acknowledged.counters.get(`c${a}`) ?? -1),
      );
    seen += 1;
    if (seen === killAfter) child.kill('SIGKILL');
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    // 'close' fires after stdout is drained, so every printed acknowledgement was counted.
    child.on('close', (code, signal) => {
      if (signal !== 'SIGKILL') reject(new Error(`writer ended by itself (code ${code})`));
      else resolve(acknowledged);
    });
  });
}

async function expectAllAcknowledgedPresent(acknowledged: Acknowledged): Promise<void> {
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  try {
    const docs = store.collection<{
      _id: string;
      run: string;
      w: number;
      k: number;
      payload: string;
      at: Date;
    }>('docs');
    const found = new Set(
      (await docs.find({ _id: { $in: acknowledged.inserts } })).map((doc) => doc._id),
    );
    const missing = acknowledged.inserts.filter((id) => !found.has(id));
    expect(missing).toEqual([]);
    // No corruption: everything that came back (acknowledged or not) is whole.
    for (const doc of await docs.find({})) {
      expect(doc).toEqual({
        _id: `${doc.run}-w${doc.w}-${doc.k}`,
        run: doc.run,
        w: doc.w,
        k: doc.k,
        payload: 'p'.repeat(100),
        at: expect.any(Date),
      });
    }
    const counters = store.collection<{ _id: string; last: number }>('counters');
    for (const [id, last] of acknowledged.counters) {
      expect((await counters.findOne({ _id: id }))?.last).toBeGreaterThanOrEqual(last);
    }
    console.log(
      `crash test: ${acknowledged.inserts.length} acknowledged inserts all present; ` +
        `${await docs.countDocuments({})} documents recovered`,
    );
  } finally {
    await store.close();
  }
}

test('one write in flight: every acknowledged write survives kill -9', async () => {
  const acknowledged = await runAndKill('a', 1, 400);
  expect(acknowledged.inserts.length).toBeGreaterThanOrEqual(200);
  await expectAllAcknowledgedPresent(acknowledged);
}, 60_000);

test('many writes in flight (group commit): every acknowledged write survives kill -9', async () => {
  const acknowledged = await runAndKill('a', 64, 3000);
  expect(acknowledged.inserts.length).toBeGreaterThanOrEqual(1000);
  await expectAllAcknowledgedPresent(acknowledged);
}, 60_000);

test('killed again after recovering: the journal keeps working across crashes', async () => {
  const first = await runAndKill('a', 16, 1000);
  const second = await runAndKill('b', 16, 1000);
  await expectAllAcknowledgedPresent({
    inserts: [...first.inserts, ...second.inserts],
    counters: second.counters,
  });
}, 60_000);
