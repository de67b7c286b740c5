import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { RateLimiter } from '../../src/limits/rate-limiter.js';
import type {
  DecisionOutcome,
  RateLimitBucket,
  RateLimitQuota,
} from '../../src/limits/rate-limiter.js';
import { describeOnEachSharedState, unreachableRedis } from './each-shared-state.js';
import type { Pods } from './each-shared-state.js';

const T0 = 1_700_000_000_000;
const now = () => T0;

const perIp = (key: string, burst = 20): RateLimitBucket => ({
  scope: 'ip',
  key,
  limit: 100,
  burst,
  windowMs: 60_000,
  failOpen: true,
});

/** onDecision as a metric would see it: counts per scope and outcome. */
function decisionCounter() {
  const counts: Record<string, number> = {};
  const onDecision = (scope: string, outcome: DecisionOutcome) => {
    counts[`${scope} ${outcome}`] = (counts[`${scope} ${outcome}`] ?? 0) + 1;
  };
  return { counts, onDecision };
}

await describeOnEachSharedState('RateLimiter', (newPods) => {
  let pods: Pods;
  let podA: SharedState;
  let podB: SharedState;
  beforeEach(async () => {
    pods = newPods();
    [podA, podB] = await Promise.all([pods.open(), pods.open()]);
  });
  afterEach(() => pods.dispose());

  test('answers with the bucket, the remaining tokens and an outcome', async () => {
    const limiter = new RateLimiter(podA, { now });
    expect(await limiter.consume(perIp('1.2.3.4'))).toEqual({
      allowed: true,
      remaining: 19,
      retryAfterMs: 0,
      limit: 100,
      windowMs: 60_000,
      outcome: 'allowed',
    });
    expect(await limiter.consume(perIp('1.2.3.4'), 19)).toMatchObject({
      allowed: true,
      remaining: 0,
    });
    expect(await limiter.consume(perIp('1.2.3.4'))).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 600,
      limit: 100,
      windowMs: 60_000,
      outcome: 'limited',
    });
  });

  test('two limiters on one shared state (two pods) draw from one bucket', async () => {
    const a = new RateLimiter(podA, { now });
    const b = new RateLimiter(podB, { now });
    expect((await a.consume(perIp('1.2.3.4', 5), 3)).remaining).toBe(2);
    expect((await b.consume(perIp('1.2.3.4', 5))).remaining).toBe(1);
    expect((await a.consume(perIp('1.2.3.4', 5))).remaining).toBe(0);
    expect(await b.consume(perIp('1.2.3.4', 5))).toMatchObject({
      allowed: false,
      retryAfterMs: 600,
    });
  });

  test('50 concurrent consumes over two pods on a burst of 10: exactly 10 allowed', async () => {
    const { counts, onDecision } = decisionCounter();
    const limiters = [
      new RateLimiter(podA, { now, onDecision }),
      new RateLimiter(podB, { now, onDecision }),
    ];
    const decisions = await Promise.all(
      Array.from({ length: 50 }, (_, i) => limiters[i % 2]!.consume(perIp('1.2.3.4', 10))),
    );
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(10);
    expect(counts).toEqual({ 'ip allowed': 10, 'ip limited': 40 });
  });

  test('the same key in two scopes is two buckets', async () => {
    const limiter = new RateLimiter(podA, { now });
    await limiter.consume(perIp('1.2.3.4', 1));
    expect((await limiter.consume(perIp('1.2.3.4', 1))).allowed).toBe(false);
    expect((await limiter.consume({ ...perIp('1.2.3.4', 1), scope: 'auth' })).allowed).toBe(true);
  });

  test('uses its clock: the bucket refills as it advances', async () => {
    let clock = T0;
    const limiter = new RateLimiter(podA, { now: () => clock });
    await limiter.consume(perIp('1.2.3.4', 1));
    clock += 599;
    expect(await limiter.consume(perIp('1.2.3.4', 1))).toMatchObject({
      allowed: false,
      retryAfterMs: 1,
    });
    clock += 1;
    expect((await limiter.consume(perIp('1.2.3.4', 1))).allowed).toBe(true);
  });

  test('a quota allows its total across pods, then refuses', async () => {
    const { counts, onDecision } = decisionCounter();
    const quota: RateLimitQuota = {
      scope: 'call',
      key: 'c1',
      total: 3,
      ttlMs: 60_000,
      failOpen: true,
    };
    const a = new RateLimiter(podA, { onDecision });
    const b = new RateLimiter(podB, { onDecision });
    expect(await a.consumeQuota(quota)).toEqual({
      allowed: true,
      remaining: 2,
      outcome: 'allowed',
    });
    expect(await b.consumeQuota(quota)).toEqual({
      allowed: true,
      remaining: 1,
      outcome: 'allowed',
    });
    expect(await a.consumeQuota(quota, 2)).toEqual({
      allowed: false,
      remaining: 0,
      outcome: 'limited',
    });
    // The refused units were counted: the quota stays spent.
    expect(await b.consumeQuota(quota)).toEqual({
      allowed: false,
      remaining: 0,
      outcome: 'limited',
    });
    expect(await a.consumeQuota({ ...quota, key: 'c2' })).toMatchObject({
      allowed: true,
      remaining: 2,
    });
    expect(counts).toEqual({ 'call allowed': 3, 'call limited': 2 });
  });

  test('invalid parameters reject, even for a fail-open limit', async () => {
    const limiter = new RateLimiter(podA, { now });
    await expect(limiter.consume(perIp('1.2.3.4'), 21)).rejects.toThrow(RangeError);
    await expect(limiter.consume({ ...perIp('1.2.3.4'), limit: 0 })).rejects.toThrow(RangeError);
    await expect(
      new RateLimiter(podA, { now: () => T0 + 0.5 }).consume(perIp('1.2.3.4')),
    ).rejects.toThrow(RangeError);
    const quota: RateLimitQuota = {
      scope: 'call',
      key: 'c1',
      total: 3,
      ttlMs: 60_000,
      failOpen: true,
    };
    await expect(limiter.consumeQuota(quota, -1)).rejects.toThrow(RangeError);
    await expect(limiter.consumeQuota({ ...quota, ttlMs: 0 })).rejects.toThrow(RangeError);
  });
});

describe('RateLimiter when shared state fails (Redis unreachable)', () => {
  let state: SharedState;
  beforeAll(async () => {
    state = await unreachableRedis();
  });
  afterAll(() => state.close());

  function limiter() {
    const reports: Array<[string, DecisionOutcome, unknown]> = [];
    const onDecision = (scope: string, outcome: DecisionOutcome, error?: unknown) =>
      reports.push([scope, outcome, error]);
    return { limiter: new RateLimiter(state, { now, onDecision }), reports };
  }

  test('a fail-open bucket lets the request through, reported as failed_open with the error', async () => {
    const { limiter: fallible, reports } = limiter();
    expect(await fallible.consume(perIp('1.2.3.4'))).toEqual({
      allowed: true,
      remaining: 0,
      retryAfterMs: 0,
      limit: 100,
      windowMs: 60_000,
      outcome: 'failed_open',
    });
    expect(reports).toEqual([['ip', 'failed_open', expect.any(Error)]]);
  });

  test('a fail-closed bucket refuses the request, reported as failed_closed', async () => {
    const { limiter: fallible, reports } = limiter();
    const initialize: RateLimitBucket = {
      scope: 'auth',
      key: '1.2.3.4',
      limit: 5,
      burst: 2,
      windowMs: 60_000,
      failOpen: false,
    };
    expect(await fallible.consume(initialize)).toEqual({
      allowed: false,
      remaining: 0,
      retryAfterMs: 2000,
      limit: 5,
      windowMs: 60_000,
      outcome: 'failed_closed',
    });
    expect(reports).toEqual([['auth', 'failed_closed', expect.any(Error)]]);
  });

  test('quotas follow their fail mode too', async () => {
    const { limiter: fallible, reports } = limiter();
    const quota: RateLimitQuota = {
      scope: 'call',
      key: 'c1',
      total: 3,
      ttlMs: 60_000,
      failOpen: true,
    };
    expect(await fallible.consumeQuota(quota)).toEqual({
      allowed: true,
      remaining: 0,
      outcome: 'failed_open',
    });
    expect(await fallible.consumeQuota({ ...quota, failOpen: false })).toEqual({
      allowed: false,
      remaining: 0,
      outcome: 'failed_closed',
    });
    expect(reports.map(([, outcome]) => outcome)).toEqual(['failed_open', 'failed_closed']);
  });

  test('invalid parameters still reject rather than pass as an outage', async () => {
    await expect(limiter().limiter.consume(perIp('1.2.3.4'), 21)).rejects.toThrow(RangeError);
  });
});
