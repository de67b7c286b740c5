// Rate-limiter cost per consume (one token-bucket script each), in process and on Redis
// (REDIS_URL, default redis://127.0.0.1:6379), one consume at a time and 32 in flight. The
// buckets refill within a second, so the keys left in Redis expire by themselves.
import { RateLimiter } from '../dist/limits/rate-limiter.js';
import { MemorySharedState } from '../dist/platform/shared-state/memory-shared-state.js';
import { openSharedState } from '../dist/platform/shared-state/open-shared-state.js';
import { printTable } from './support.mjs';

const silent = { info() {}, warn() {}, error() {} };
/** Traffic comes from many clients: spread the consumes over this many buckets. */
const BUCKETS = 1000;

export async function benchLimiter() {
  const results = {};
  const memory = new MemorySharedState({ keyPrefix: 'bench:', logger: silent });
  results['in-process, sequential'] = await measure(memory, 1, 200_000);
  results['in-process, 32 in flight'] = await measure(memory, 32, 200_000);
  await memory.close();

  const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
  const redis = await openSharedState({
    redisUrl,
    keyPrefix: `bench:limiter:${process.pid}:`,
    logger: silent,
  });
  if (
    await redis.ping().then(
      () => true,
      () => false,
    )
  ) {
    results['Redis, sequential'] = await measure(redis, 1, 20_000);
    results['Redis, 32 in flight'] = await measure(redis, 32, 100_000);
  } else {
    console.log(`SKIP Redis rate-limiter benchmark: no Redis answers at ${new URL(redisUrl).host}`);
  }
  await redis.close();
  printTable('Rate limiter: cost per consume', results);
}

async function measure(state, inFlight, total) {
  const limiter = new RateLimiter(state);
  const bucket = (n) => ({
    scope: 'bench',
    key: String(n % BUCKETS),
    limit: 1000,
    burst: 100,
    windowMs: 1000,
    failOpen: false,
  });
  const run = async (count) => {
    let next = 0;
    await Promise.all(
      Array.from({ length: inFlight }, async () => {
        while (next < count) {
          const { outcome } = await limiter.consume(bucket(next++));
          if (outcome === 'failed_closed')
            throw new Error('shared state failed during the benchmark');
        }
      }),
    );
  };
  await run(Math.min(total, 5_000)); // JIT, and the script into Redis's cache
  const startedAt = performance.now();
  await run(total);
  const seconds = (performance.now() - startedAt) / 1000;
  return {
    consumes: total,
    µsPerConsume: Number(((seconds * 1e6) / total).toFixed(2)),
    consumesPerSecond: Math.round(total / seconds),
  };
}
