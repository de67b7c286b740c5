/**
 * The token-bucket script on both implementations with identical expectations, which is
 * what proves the Lua and its `local` twin agree. Time is passed in, never slept through
 * (except to watch a TTL run out).
 */
import { defineScript } from '../../src/platform/shared-state/shared-state.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { takeTokens } from '../../src/limits/token-bucket.js';
import type { TokenBucketParams } from '../../src/limits/token-bucket.js';
import { describeOnEachSharedState } from './each-shared-state.js';
import type { Pods } from './each-shared-state.js';

const T0 = 1_700_000_000_000;
/** The spec's per-IP limit: 100 per minute, burst 20, so one token every 600 ms. */
const PER_IP = { limit: 100, burst: 20, windowMs: 60_000 };

const pttl = defineScript<[], number>({
  name: 'test-pttl',
  keys: 1,
  lua: `return redis.call('PTTL', KEYS[1])`,
  local: (state, keys) => state.pttl(keys[0]!),
});

await describeOnEachSharedState('token bucket', (newPods) => {
  let pods: Pods;
  let state: SharedState;
  beforeEach(async () => {
    pods = newPods();
    state = await pods.open();
  });
  afterEach(() => pods.dispose());

  const take = (
    nowMs: number,
    bucket: Omit<TokenBucketParams, 'cost' | 'nowMs'> = PER_IP,
    cost = 1,
    key = 'b',
  ) => takeTokens(state, key, { ...bucket, cost, nowMs });

  test('starts full: the burst passes at once, counting down, then it refuses', async () => {
    const remaining: number[] = [];
    for (let i = 0; i < 20; i++) {
      const result = await take(T0);
      expect(result.allowed).toBe(true);
      expect(result.retryAfterMs).toBe(0);
      remaining.push(result.remaining);
    }
    expect(remaining).toEqual([
      19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0,
    ]);
    expect(await take(T0)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 600 });
  });

  test('refills continuously at limit per window: one token every 600 ms', async () => {
    for (let i = 0; i < 20; i++) await take(T0);
    expect(await take(T0 + 599)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 1 });
    expect(await take(T0 + 600)).toEqual({ allowed: true, remaining: 0, retryAfterMs: 0 });
    expect(await take(T0 + 900)).toEqual({ allowed: false, remaining: 0, retryAfterMs: 300 });
    // The half token held at T0 + 900 carries over: 5 tokens by T0 + 3600.
    expect(await take(T0 + 3600)).toEqual({ allowed: true, remaining: 4, retryAfterMs: 0 });
  });

  test('retry-after is exact when a token takes a fractional number of milliseconds', async () => {
    const sevenPerMinute = { limit: 7, burst: 10, windowMs: 60_000 }; // a token every 8571.43 ms
    expect((await take(T0, sevenPerMinute, 10)).allowed).toBe(true);
    expect(await take(T0, sevenPerMinute)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 8572,
    });
    expect(await take(T0 + 8571, sevenPerMinute)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 1,
    });
    // Six tokens take 51 428.57 ms: the fractions add up without drifting.
    expect(await take(T0 + 51_428, sevenPerMinute, 6)).toEqual({
      allowed: false,
      remaining: 5,
      retryAfterMs: 1,
    });
    expect(await take(T0 + 51_429, sevenPerMinute, 6)).toEqual({
      allowed: true,
      remaining: 0,
      retryAfterMs: 0,
    });
  });

  test('a cost above 1 takes that many tokens and waits for all of them', async () => {
    const tenPerSecond = { limit: 10, burst: 10, windowMs: 1000 };
    expect(await take(T0, tenPerSecond, 4)).toEqual({
      allowed: true,
      remaining: 6,
      retryAfterMs: 0,
    });
    expect(await take(T0, tenPerSecond, 4)).toEqual({
      allowed: true,
      remaining: 2,
      retryAfterMs: 0,
    });
    expect(await take(T0, tenPerSecond, 4)).toEqual({
      allowed: false,
      remaining: 2,
      retryAfterMs: 200,
    });
    expect(await take(T0 + 200, tenPerSecond, 4)).toEqual({
      allowed: true,
      remaining: 0,
      retryAfterMs: 0,
    });
    expect(await take(T0 + 200, tenPerSecond, 10)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 1000,
    });
  });

  test('never holds more than the burst, however long it sat idle', async () => {
    await take(T0);
    const tenDaysLater = T0 + 10 * 24 * 60 * 60 * 1000;
    expect(await take(tenDaysLater)).toEqual({ allowed: true, remaining: 19, retryAfterMs: 0 });
    for (let i = 0; i < 19; i++) expect((await take(tenDaysLater)).allowed).toBe(true);
    expect((await take(tenDaysLater)).allowed).toBe(false);
  });

  test('a lagging clock (another pod) gets no refill twice', async () => {
    const perSecond = { limit: 1, burst: 1, windowMs: 1000 };
    expect((await take(T0 + 1000, perSecond)).allowed).toBe(true);
    expect(await take(T0 + 500, perSecond)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 1000,
    });
    expect(await take(T0 + 1999, perSecond)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 1,
    });
    expect((await take(T0 + 2000, perSecond)).allowed).toBe(true);
  });

  test('the key lives exactly until the bucket is full again', async () => {
    for (let i = 0; i < 5; i++) await take(T0);
    const afterFive = await state.run(pttl, ['b'], []);
    expect(afterFive).toBeLessThanOrEqual(3000); // 5 tokens × 600 ms
    expect(afterFive).toBeGreaterThan(2900);
    for (let i = 0; i < 15; i++) await take(T0);
    expect((await take(T0)).allowed).toBe(false);
    const afterRefusal = await state.run(pttl, ['b'], []);
    expect(afterRefusal).toBeLessThanOrEqual(12_000); // 20 tokens × 600 ms
    expect(afterRefusal).toBeGreaterThan(11_900);
  });

  test('an idle bucket vanishes, and comes back full', async () => {
    const quick = { limit: 2, burst: 2, windowMs: 40 }; // full again 20 ms after one take
    await take(T0, quick);
    expect(await state.exists('b')).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(await state.exists('b')).toBe(false);
    expect(await take(T0 + 60, quick)).toEqual({ allowed: true, remaining: 1, retryAfterMs: 0 });
  });

  test('buckets are independent per key', async () => {
    for (let i = 0; i < 20; i++) await take(T0);
    expect((await take(T0, PER_IP, 1, 'other')).remaining).toBe(19);
  });

  test.each([
    ['a zero limit', { ...PER_IP, limit: 0 }, 1, T0],
    ['a fractional burst', { ...PER_IP, burst: 1.5 }, 1, T0],
    ['a negative window', { ...PER_IP, windowMs: -1 }, 1, T0],
    ['a zero cost', PER_IP, 0, T0],
    ['a cost above the burst', PER_IP, 21, T0],
    ['a fractional clock', PER_IP, 1, T0 + 0.5],
    ['burst × window beyond 2^53', { ...PER_IP, burst: 2 ** 40, windowMs: 2 ** 20 }, 1, T0],
  ])('refuses %s with a RangeError', async (_name, bucket, cost, nowMs) => {
    await expect(take(nowMs, bucket, cost)).rejects.toThrow(RangeError);
  });
});
