// One expiry sweep of the in-process shared state (MemoryStore, REDIS_URL unset) holding
// BENCH_SWEEP_KEYS keys (default 200,000) that expire in 24 h: a day of replay logs, a key per
// event. The sweep runs every second, busy or idle, so its time is a loop block per second.
// Measured for this checkout's build and, with BENCH_SERVICE_DIR, another's, one after the
// other: `node bench/expiry-sweep.mjs` after `npm run build`. It calls the store's private
// `sweep` directly (ten times; the median and the longest).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

async function sweepTimes(dir, keys) {
  const modulePath = path.resolve(dir, 'dist/platform/shared-state/memory-store.js');
  const { MemoryStore } = await import(pathToFileURL(modulePath).href);
  const store = new MemoryStore();
  for (let i = 0; i < keys; i++)
    store.set(`ev:{0x${i % 1000}}:e:${i}`, 'x'.repeat(100), { ttlMs: 86_400_000 });
  const times = [];
  for (let round = 0; round < 10; round++) {
    const startedAt = performance.now();
    store.sweep();
    times.push(performance.now() - startedAt);
  }
  return times.sort((a, b) => a - b);
}

export async function benchExpirySweep({
  keys = Number(process.env.BENCH_SWEEP_KEYS ?? 200_000),
  dirs = ['.', process.env.BENCH_SERVICE_DIR].filter(Boolean),
} = {}) {
  for (const dir of dirs) {
    const times = await sweepTimes(dir, keys);
    console.log(
      `${dir}: one expiry sweep over ${keys} keys expiring in 24 h: median ${times[5].toFixed(3)} ms, longest ${times[9].toFixed(3)} ms`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchExpirySweep();
