// Tail latency at a steady, moderate load, the embedded store's compaction included: the figure a
// messenger is judged by (issue #29, first row). The service (`node dist/main.js`, role `all`,
// embedded store, in-process shared state, LOG_LEVEL=warn, rate limits off) with N users holding
// one WebSocket each; 1:1 messages with a 100-character ciphertext from a random user to another
// random user, started on a fixed schedule (open loop: send k is due at k / rate seconds whatever
// the answers, and its latency counts from when it was due, so a stalled server or client is not
// hidden), for BENCH_TAIL_SECONDS (default 40) at each rate of BENCH_TAIL_RATES (default
// "200,500"), for each N of BENCH_TAIL_USERS (default "1000,5000"), one service per N, the rates
// in turn on the same growing store.
//
// The compaction must happen during the measurement, at least twice per round: the service runs
// with STORE_COMPACTION_BYTES = BENCH_TAIL_COMPACTION_BYTES (default 4 MiB, against 64 MiB in
// production, where a compaction comes every ~60,000 messages); the row reports how many
// compactions the round saw (journal generations in DATA_DIR). The snapshot grows with the store
// over the run, so the last rounds snapshot the most.
//
// Figures per round: p50/p99/p99.9/max send → delivery at the recipient, deliveries over 50 ms,
// the server's largest event-loop delay over the round (prom-client's monitorEventLoopDelay,
// read from /metrics, which resets it; its resolution is 20 ms, see src/platform/metrics), the
// client's own (this process's, 10 ms resolution: a late delivery the client read late is the
// client's), the server's GC pauses and heap, its journal fdatasyncs over 25 ms, compactions, the
// server's CPU per send (all its threads, and its main thread alone: the difference is V8's helper
// threads, the file system's thread pool and any work moved to a worker thread; CPU time, unlike
// the latencies, means something on a loaded machine), and before the first
// round the server's CPU with the N connections idle for BENCH_TAIL_IDLE_SECONDS (default 10).
import { readdirSync } from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { openSocket, connectAll, numberAfter } from './fan-out.mjs';
import { startWithUsers } from './sign-in.mjs';
import {
  jsonPoster,
  percentile,
  printTable,
  processCpuSeconds,
  raiseFileLimit,
  printRatio,
} from './support.mjs';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
/** "Over 50 ms" is a stall in the target. */
const STALL_MS = 50;

/** The journal generation the store writes to now (it goes up by one per compaction). */
function journalGeneration(dataDir) {
  const generations = readdirSync(dataDir)
    .map((name) => /^journal\.(\d+)\.ejsonl$/.exec(name)?.[1])
    .filter((generation) => generation !== undefined)
    .map(Number);
  return Math.max(0, ...generations);
}

/**
 * From the server's /metrics (prom-client's default metrics): its largest event-loop delay since
 * the last scrape (the scrape resets it), in ms; its garbage-collection pauses so far, how many
 * took over 10 ms and their total ms (the histogram's buckets); its heap in MB.
 */
async function serverState(base) {
  const text = await fetch(`${base}/metrics`).then((response) => response.text());
  const values = (pattern) =>
    [...text.matchAll(new RegExp(`^${pattern} (\\S+)$`, 'gm'))].map((match) => Number(match[1]));
  const sum = (pattern) => values(pattern).reduce((total, value) => total + value, 0);
  return {
    loopDelayMaxMs: Number((values('nodejs_eventloop_lag_max_seconds')[0] * 1000).toFixed(1)),
    gcPausesOver10Ms:
      sum('nodejs_gc_duration_seconds_count\\{[^}]*\\}') -
      sum('nodejs_gc_duration_seconds_bucket\\{le="0.01"[^}]*\\}'),
    gcMs: sum('nodejs_gc_duration_seconds_sum\\{[^}]*\\}') * 1000,
    heapMB: Math.round(values('nodejs_heap_size_used_bytes')[0] / 2 ** 20),
    journalFsyncs: sum('store_journal_fsync_seconds_count'),
    journalFsyncsOver25Ms:
      sum('store_journal_fsync_seconds_count') -
      sum('store_journal_fsync_seconds_bucket\\{le="0.025"\\}'),
  };
}

/** Sends at `rate` per second for `seconds`, random sender and recipient; resolves with the figures. */
async function measureRate({ sockets, send, base, service, rate, seconds, label }) {
  const { dataDir, pid } = service;
  const users = sockets.length;
  const count = rate * seconds;
  const recipients = new Int32Array(count);
  const dueAt = new Float64Array(count);
  const latencies = [];
  const marker = Buffer.from(`"client_message_id":"${label}-`);
  let delivered = 0;
  let allDelivered;
  const done = new Promise((resolve) => (allDelivered = resolve));
  sockets.forEach((socket, user) => {
    socket.removeAllListeners('message');
    socket.on('message', (frame) => {
      const index = numberAfter(frame, marker);
      if (index < 0 || index >= count || recipients[index] !== user) return;
      latencies.push(performance.now() - dueAt[index]);
      if (++delivered === count) allDelivered();
    });
  });
  const ciphertext = 'c'.repeat(100);
  const generationBefore = journalGeneration(dataDir);
  const serverBefore = await serverState(base);
  const cpuBefore = processCpuSeconds(pid);
  const mainThreadCpuBefore = processCpuSeconds(pid, pid);
  // The client shares the machine: its own loop delay says whether a late delivery was the
  // client's (a frame read late) rather than the server's.
  const clientLoopDelay = monitorEventLoopDelay({ resolution: 10 });
  clientLoopDelay.enable();
  const startedAt = performance.now();
  const pending = [];
  for (let next = 0; next < count;) {
    const now = performance.now();
    for (; next < count && startedAt + (next * 1000) / rate <= now; next++) {
      const from = Math.floor(Math.random() * users);
      const to = (from + 1 + Math.floor(Math.random() * (users - 1))) % users;
      recipients[next] = to;
      dueAt[next] = startedAt + (next * 1000) / rate;
      // Caught at once: a rejection left unhandled until the schedule ends would end the process.
      pending.push(send(from, to, `${label}-${next}`, ciphertext).catch((error) => error));
    }
    await sleep(1);
  }
  const failed = (await Promise.all(pending)).filter((result) => result instanceof Error);
  if (failed.length > 0)
    throw new Error(
      `${label}: ${failed.length} of ${count} sends failed, first: ${failed[0].message}`,
    );
  // The deadline's timer is cleared once everything arrived: left pending, it kept the process
  // alive for a minute after the results were printed.
  let deadline;
  await Promise.race([
    done,
    new Promise((_, reject) => {
      deadline = setTimeout(
        () => reject(new Error(`${label}: ${delivered} of ${count} deliveries after 60 s`)),
        60_000,
      );
    }),
  ]).finally(() => clearTimeout(deadline));
  clientLoopDelay.disable();
  const serverAfter = await serverState(base);
  const cpuMsPerSend = (seconds) => Number(((seconds * 1000) / count).toFixed(3));
  latencies.sort((a, b) => a - b);
  const ms = (value) => Number(value.toFixed(1));
  return {
    sends: count,
    'p50 ms': ms(percentile(latencies, 50)),
    'p99 ms': ms(percentile(latencies, 99)),
    'p99.9 ms': ms(percentile(latencies, 99.9)),
    'max ms': ms(latencies.at(-1)),
    [`over ${STALL_MS} ms`]: latencies.filter((latency) => latency > STALL_MS).length,
    'server loop delay max ms': serverAfter.loopDelayMaxMs,
    'client loop delay max ms': ms(clientLoopDelay.max / 1e6),
    'GC pauses > 10 ms': serverAfter.gcPausesOver10Ms - serverBefore.gcPausesOver10Ms,
    'GC ms': Math.round(serverAfter.gcMs - serverBefore.gcMs),
    'heap MB': serverAfter.heapMB,
    'journal fsyncs > 25 ms': `${serverAfter.journalFsyncsOver25Ms - serverBefore.journalFsyncsOver25Ms} of ${serverAfter.journalFsyncs - serverBefore.journalFsyncs}`,
    compactions: journalGeneration(dataDir) - generationBefore,
    'server CPU ms per send': cpuMsPerSend(processCpuSeconds(pid) - cpuBefore),
    'main thread CPU ms per send': cpuMsPerSend(processCpuSeconds(pid, pid) - mainThreadCpuBefore),
  };
}

async function measureUsers({ users, rates, seconds, compactionBytes, idleSeconds, serviceDir }) {
  const { service, base, sessions, addresses } = await startWithUsers(
    users,
    `tl${Date.now().toString(36)}`,
    // BENCH_SERVICE_DIR: another checkout's build, for a before/after run in one session.
    { STORE_COMPACTION_BYTES: String(compactionBytes), BENCH_SERVICE_DIR: serviceDir },
  );
  try {
    const sockets = await connectAll(users, (user) =>
      openSocket(`ws://127.0.0.1:${service.httpPort}/ws`, ['bearer', sessions[user].access_token]),
    );
    await sleep(2000);
    const idleCpuBefore = processCpuSeconds(service.pid);
    await sleep(idleSeconds * 1000);
    const idleCpuPercent = ((processCpuSeconds(service.pid) - idleCpuBefore) / idleSeconds) * 100;
    const post = jsonPoster(base, 256);
    const send = (from, to, id, ciphertext) =>
      post(
        '/api/v1/send',
        { client_message_id: id, recipient_address: addresses[to], ciphertext },
        { authorization: `Bearer ${sessions[from].access_token}` },
      );
    // Untimed: the service's code paths compiled and its connections to the client open.
    await measureRate({
      sockets,
      send,
      base,
      service,
      rate: 100,
      seconds: 3,
      label: 'warm',
    });
    const rows = {};
    for (const rate of rates)
      rows[`${rate} sends/s`] = await measureRate({
        sockets,
        send,
        base,
        service,
        rate,
        seconds,
        label: `r${rate}`,
      });
    for (const socket of sockets) socket.terminate();
    return { rows, idleCpuPercent: Number(idleCpuPercent.toFixed(2)) };
  } finally {
    await service.stop();
  }
}

export async function benchTail({
  userCounts = (process.env.BENCH_TAIL_USERS ?? '1000,5000').split(',').map(Number),
  rates = (process.env.BENCH_TAIL_RATES ?? '200,500').split(',').map(Number),
  seconds = Number(process.env.BENCH_TAIL_SECONDS ?? 40),
  compactionBytes = Number(process.env.BENCH_TAIL_COMPACTION_BYTES ?? 4 * 1024 * 1024),
  idleSeconds = Number(process.env.BENCH_TAIL_IDLE_SECONDS ?? 10),
  serviceDir = process.env.BENCH_SERVICE_DIR,
} = {}) {
  raiseFileLimit(process.pid);
  for (const users of userCounts) {
    const { rows, idleCpuPercent } = await measureUsers({
      users,
      rates,
      seconds,
      compactionBytes,
      idleSeconds,
      serviceDir,
    });
    printTable(
      `Tail latency, send → delivery at a fixed rate: ${users} users with one socket each, ${seconds} s per rate, compaction every ${compactionBytes} journal bytes`,
      rows,
    );
    console.log(`server CPU with ${users} idle connections: ${idleCpuPercent} %`);
    for (const [rate, row] of Object.entries(rows)) {
      printRatio(`p99 send → delivery ms at ${rate}, ${users} users`, row['p99 ms'], '<=', 20);
      printRatio(`slowest delivery ms at ${rate}, ${users} users`, row['max ms'], '<=', STALL_MS);
    }
    printRatio(`idle CPU % with ${users} idle connections`, idleCpuPercent, '<=', 0.5);
  }
}

// Runs alone too: `node bench/tail.mjs` after `npm run build`.
if (import.meta.url === `file://${process.argv[1]}`) await benchTail();
