// Embedded store write throughput: one write in flight at a time costs one fdatasync per
// write; many writes in flight share fdatasyncs (group commit). Durable writes only: each
// insert resolves after its journal record is on disk.
//
// Then the store's background work as its history grows: a messages collection with the
// service's own indexes (BENCH_STORE_MESSAGES, default 200,000, one in 10 with a disappearing
// timer, one in 500 unannounced): the CPU the store spends while idle (its TTL sweep runs every
// second) and the time of the announcement sweeper's query, which both must not grow with the
// number of messages.
//
// Then a compaction of that store (BENCH_STORE_MESSAGES messages with a 256-byte ciphertext, the
// snapshot ~100 MB at 200,000): the longest the event loop waited while it ran (a delay histogram
// with 1 ms resolution, the "compaction never blocks the event loop") and how long it took.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { messageIndexes, unannouncedBefore } from '../dist/messaging/messages/stored-message.js';
import { EmbeddedDocumentStore } from '../dist/platform/store/embedded/embedded-store.js';
import { printTable } from './support.mjs';

const silent = { info() {}, warn() {}, error() {} };
const row = (n) => ({ n, body: 'b'.repeat(200), at: new Date() });
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function benchStore({
  messages = Number(process.env.BENCH_STORE_MESSAGES ?? 200_000),
} = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'store-bench-'));
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silent });
  const rows = store.collection('rows');
  const results = {};
  for (const [inFlight, total] of [
    [1, 1_000],
    [16, 10_000],
    [64, 20_000],
    [256, 20_000],
  ]) {
    let next = 0;
    const startedAt = performance.now();
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < total) await rows.insertOne(row(next++));
      }),
    );
    const seconds = (performance.now() - startedAt) / 1000;
    results[`${inFlight} in flight`] = {
      inserts: total,
      seconds: Number(seconds.toFixed(2)),
      writesPerSecond: Math.round(total / seconds),
    };
  }
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
  printTable('Embedded store: durable inserts (200-byte documents)', results);
  printTable(
    `Embedded store: background work with ${messages} messages`,
    await backgroundWork(messages),
  );
  printTable(`Embedded store: a compaction of ${messages} messages`, await compaction(messages));
}

/** Fills `collection` with `messages` messages shaped as the service stores them. */
async function fillMessages(collection, messages, fields = () => ({})) {
  const now = Date.now();
  for (let start = 0; start < messages; start += 1000) {
    await collection.insertMany(
      Array.from({ length: 1000 }, (_, offset) => {
        const n = start + offset;
        return {
          _id: `m${n}`,
          conversationId: `c${n % 1000}`,
          sequence: n,
          senderAddress: `0x${n % 50}`,
          clientMessageId: `k${n}`,
          sentAt: new Date(now - 60_000 + offset),
          ...(n % 10 === 0 ? { expiresAt: new Date(now + 3_600_000) } : {}),
          ...(n % 500 === 0 ? { unannounced: true } : {}),
          ...fields(n),
        };
      }),
    );
  }
}

/**
 * Fills a store whose threshold is never reached; then, three times, reopens it with a
 * threshold its journal is past and makes one write: that write starts a compaction, and
 * close() waits for its end. The event loop's delays are recorded over each compaction and over
 * one idle second before it. On a machine shared with other jobs the OS preempts the process
 * at any moment, which shows as delays too: the least of the three rounds is the figure.
 */
async function compaction(messages) {
  const dataDir = await mkdtemp(join(tmpdir(), 'store-bench-'));
  const ciphertext = 'c'.repeat(256);
  const open = (compactionThresholdBytes) =>
    EmbeddedDocumentStore.open({ dataDir, logger: silent, compactionThresholdBytes });
  const longestDelayMs = async (work) => {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    await work();
    delay.disable();
    return delay.max / 1e6;
  };
  try {
    const filling = await open(2 ** 40);
    await filling.ensureIndexes(messageIndexes);
    await fillMessages(filling.collection('messages'), messages, () => ({ ciphertext }));
    await filling.close();
    const rounds = [];
    for (let round = 0; round < 3; round++) {
      const store = await open(1);
      const idle = await longestDelayMs(() => sleep(1000));
      const startedAt = performance.now();
      const compacting = await longestDelayMs(async () => {
        await store.collection('compaction_trigger').insertOne({ _id: `t${round}` });
        await store.close();
      });
      rounds.push({ idle, compacting, seconds: (performance.now() - startedAt) / 1000 });
    }
    const least = (field) => Number(Math.min(...rounds.map((round) => round[field])).toFixed(1));
    return {
      [`${messages} messages`]: {
        'longest event-loop delay ms, compacting': least('compacting'),
        'longest event-loop delay ms, an idle second': least('idle'),
        'compaction seconds': least('seconds'),
      },
    };
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function backgroundWork(messages) {
  const dataDir = await mkdtemp(join(tmpdir(), 'store-bench-'));
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silent });
  try {
    await store.ensureIndexes(messageIndexes);
    const collection = store.collection('messages');
    await fillMessages(collection, messages);
    await sleep(1000);
    const idleFrom = process.cpuUsage();
    await sleep(10_000);
    const idle = process.cpuUsage(idleFrom);
    const times = [];
    for (let round = 0; round < 5; round++) {
      const startedAt = performance.now();
      await collection.find(unannouncedBefore(new Date()), { sort: { sentAt: 1 }, limit: 100 });
      times.push(performance.now() - startedAt);
    }
    return {
      [`${messages} messages`]: {
        'idle CPU % of a core (TTL sweep each second)': Number(
          (((idle.user + idle.system) / 1e6 / 10) * 100).toFixed(2),
        ),
        'announcement sweep query ms (median of 5)': Number(
          times.sort((a, b) => a - b)[2].toFixed(1),
        ),
      },
    };
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}
