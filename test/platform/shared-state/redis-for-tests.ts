/**
 * Where the Redis-backed tests find Redis, and what happens when none answers: with
 * REDIS_URL set or in CI (which starts Redis) that is a failure; on a developer machine
 * without Redis those tests are skipped with a printed notice.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

export const redisUrl = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const redisRequired = process.env.REDIS_URL !== undefined || process.env.CI !== undefined;

/** A key prefix no other test run shares; everything under it is removed by deleteKeys. */
export function uniqueTestPrefix(label: string): string {
  return `test:${label}:${process.pid}-${randomUUID().slice(0, 8)}:`;
}

/** Registers the tests `define` declares if Redis answers; otherwise fails or skips. */
export async function withRedis(define: (url: string) => void): Promise<void> {
  if (await redisAnswers(redisUrl)) {
    define(redisUrl);
    return;
  }
  const where = new URL(redisUrl).host;
  if (redisRequired) {
    test(`Redis answers at ${where}`, () => {
      throw new Error(`no Redis answers at ${where} (REDIS_URL or CI requires it)`);
    });
    return;
  }
  console.warn(
    `SKIP Redis shared-state tests: no Redis answers at ${where} (set REDIS_URL to require it)`,
  );
  test.skip(`Redis at ${where}`, () => undefined);
}

/** Our own raw connection, for what the port does not offer (cleanup, CLIENT KILL, SCRIPT EXISTS). */
export async function adminConnection(url: string): Promise<Redis> {
  const admin = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await admin.connect();
  return admin;
}

export async function deleteKeys(url: string, prefix: string): Promise<void> {
  const admin = await adminConnection(url);
  try {
    for await (const keys of admin.scanStream({ match: `${prefix}*`, count: 500 })) {
      const batch = keys as string[];
      if (batch.length > 0) await admin.del(...batch);
    }
  } finally {
    await admin.quit();
  }
}

async function redisAnswers(url: string): Promise<boolean> {
  const probe = new Redis(url, {
    lazyConnect: true,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  probe.on('error', () => undefined); // the outcome is reported by connect()/ping()
  try {
    await probe.connect();
    await probe.ping();
    return true;
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}
