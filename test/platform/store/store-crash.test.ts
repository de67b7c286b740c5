/**
 * kill -9 while writing: every write the child saw acknowledged must be there after a
 * restart, with one write in flight at a time (one fsync each), with many (group commit), and
 * while a compaction writes its snapshot.
 */
import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
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
  /** Compactions the writer saw finish. */
  compactions: number;
}

/** When to kill the writer: after `killAfter` acknowledgements, by default. */
interface KillPlan {
  killAfter: number;
  /** The writer's compaction threshold; the store's default when absent. */
  compactionBytes?: number;
  /**
   * Past `killAfter` and this many finished compactions, wait for the next one to create its
   * snapshot's temporary file and kill then: mid-compaction.
   */
  duringCompactionAfter?: number;
}

const openStorePath = builtModule('platform/store/open-store.js');
let dataDir: string;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-crash-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

/** Runs the writer until the plan says, then SIGKILLs it mid-stream. */
function runAndKill(run: string, inFlight: number, plan: KillPlan): Promise<Acknowledged> {
  const { killAfter, compactionBytes, duringCompactionAfter } = plan;
  const child = spawn(
    process.execPath,
    [
      writer,
      openStorePath,
      dataDir,
      String(inFlight),
      run,
      ...(compactionBytes ? [String(compactionBytes)] : []),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const acknowledged: Acknowledged = { inserts: [], counters: new Map(), compactions: 0 };
  let seen = 0;
  let watching = false;
  const killDuringCompaction = () => {
    watching = true;
    const watcher = watch(dataDir, (_event, name) => {
      if (!name?.endsWith('.tmp')) return;
      child.kill('SIGKILL');
      watcher.close();
    });
    child.once('exit', () => watcher.close());
  };
  createInterface({ input: child.stdout }).on('line', (line) => {
    const [kind, a, b] = line.split(' ');
    if (kind === 'i') acknowledged.inserts.push(a!);
    if (kind === 'u')
      acknowledged.counters.set(
        `c${a}`,
        Math.max(Number(b), acknowledged.counters.get(`c${a}`) ?? -1),
      );
    if (kind === 'c') acknowledged.compactions += 1;
    seen += 1;
    if (duringCompactionAfter === undefined) {
      if (seen === killAfter) child.kill('SIGKILL');
    } else if (!watching && seen >= killAfter && acknowledged.compactions >= duringCompactionAfter)
      killDuringCompaction();
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
  const acknowledged = await runAndKill('a', 1, { killAfter: 400 });
  expect(acknowledged.inserts.length).toBeGreaterThanOrEqual(200);
  await expectAllAcknowledgedPresent(acknowledged);
}, 60_000);

test('many writes in flight (group commit): every acknowledged write survives kill -9', async () => {
  const acknowledged = await runAndKill('a', 64, { killAfter: 3000 });
  expect(acknowledged.inserts.length).toBeGreaterThanOrEqual(1000);
  await expectAllAcknowledgedPresent(acknowledged);
}, 60_000);

test('killed again after recovering: the journal keeps working across crashes', async () => {
  const first = await runAndKill('a', 16, { killAfter: 1000 });
  const second = await runAndKill('b', 16, { killAfter: 1000 });
  await expectAllAcknowledgedPresent({
    inserts: [...first.inserts, ...second.inserts],
    counters: second.counters,
    compactions: 0,
  });
}, 60_000);

test('kill -9 while a compaction writes its snapshot loses nothing', async () => {
  // 32 KiB of journal per compaction: the writer compacts about every 150 writes.
  const plan = { killAfter: 2000, compactionBytes: 32 * 1024, duringCompactionAfter: 3 };
  const runs = await killMidCompaction(['a1', 'a2', 'a3', 'a4', 'a5'], plan);
  expect(runs[0]!.compactions).toBeGreaterThanOrEqual(3);
  // Killed mid-compaction: its snapshot's temporary file is there, unrenamed.
  expect((await readdir(dataDir)).some((name) => name.endsWith('.tmp'))).toBe(true);
  const inserts = runs.flatMap((run) => run.inserts);
  await expectAllAcknowledgedPresent({ ...runs[runs.length - 1]!, inserts });
  expect((await readdir(dataDir)).some((name) => name.endsWith('.tmp'))).toBe(false);
  // And the store compacts again after recovering, from the files the crash left.
  const again = await runAndKill('b', 16, { ...plan, killAfter: 1000, duringCompactionAfter: 1 });
  await expectAllAcknowledgedPresent({ ...again, inserts: [...inserts, ...again.inserts] });
}, 120_000);

/**
 * Runs writers on the same data, each killed as a compaction creates its snapshot's temporary
 * file, until a kill lands before the snapshot is renamed: on a loaded machine the SIGKILL can
 * arrive after a small snapshot is already complete. Answers every run's acknowledgements.
 */
async function killMidCompaction(labels: string[], plan: KillPlan): Promise<Acknowledged[]> {
  const runs: Acknowledged[] = [];
  for (const label of labels) {
    runs.push(await runAndKill(label, 16, plan));
    if ((await readdir(dataDir)).some((name) => name.endsWith('.tmp'))) break;
  }
  return runs;
}
