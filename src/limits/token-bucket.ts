/**
 * The token bucket every limit of the spec is made of, as one atomic shared-state script:
 * `limit` tokens per `windowMs` sustained, at most `burst` held, starting full. For 100 per
 * minute with a burst of 20: 20 at once, then one every 600 ms.
 *
 * The level is kept in units of 1/windowMs token, so that the refill is exactly `limit`
 * units per millisecond and every quantity is an integer: Lua and JavaScript then compute
 * bit-identical results (no fractional tokens whose decimal spelling could differ between
 * the two), and Redis's truncation of numeric replies loses nothing.
 */
import { defineScript } from '../platform/shared-state/shared-state.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { assertPositiveIntegers } from './limit-arguments.js';

export interface TokenBucketParams {
  /** Tokens held at most: the quick-succession allowance. */
  burst: number;
  /** Tokens added per window: the sustained rate. */
  limit: number;
  windowMs: number;
  /** Tokens this call takes; at most `burst`, or it could never be allowed. */
  cost: number;
  /** The caller's clock, in epoch milliseconds: scripts never read a clock. */
  nowMs: number;
}

export interface TokenBucketResult {
  allowed: boolean;
  /** Whole tokens left after this call. */
  remaining: number;
  /** 0 when allowed; otherwise the wait until `cost` tokens are available. */
  retryAfterMs: number;
}

type ScriptArgs = [burst: number, limit: number, windowMs: number, cost: number, nowMs: number];
type ScriptResult = readonly [allowed: number, remaining: number, retryAfterMs: number];

/**
 * KEYS[1] holds "level:lastMs" (absent = full). The TTL is the time until the bucket is
 * full again, after which absence means the same thing, so idle buckets cost no memory.
 * `lastMs` only moves forward: a pod whose clock lags another's gets no refill twice.
 * `%d` keeps large integers exact where Lua's tostring would round them to 14 digits.
 */
export const tokenBucketScript = defineScript<ScriptArgs, ScriptResult>({
  name: 'token-bucket',
  keys: 1,
  lua: `local burst, limit, window, cost, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4]), tonumber(ARGV[5])
local capacity, need = burst * window, cost * window
local level, last = capacity, now
local stored = redis.call('GET', KEYS[1])
if stored then
  local l, t = string.match(stored, '^(%d+):(%d+)$')
  level, last = tonumber(l), tonumber(t)
end
level = math.min(capacity, level + math.max(0, now - last) * limit)
local allowed, retry = 0, 0
if level >= need then
  level, allowed = level - need, 1
else
  retry = math.ceil((need - level) / limit)
end
redis.call('SET', KEYS[1], string.format('%d:%d', level, math.max(last, now)), 'PX', math.ceil((capacity - level) / limit))
return {allowed, math.floor(level / window), retry}`,
  local: (state, keys, args) => {
    const key = keys[0]!; // run() checked the key count
    const [burst, limit, window, cost, now] = args.map(Number) as ScriptArgs;
    const capacity = burst * window;
    const need = cost * window;
    let level = capacity;
    let last = now;
    const stored = state.get(key);
    if (stored !== null) [level, last] = stored.split(':').map(Number) as [number, number];
    level = Math.min(capacity, level + Math.max(0, now - last) * limit);
    let allowed = 0;
    let retry = 0;
    if (level >= need) {
      level -= need;
      allowed = 1;
    } else {
      retry = Math.ceil((need - level) / limit);
    }
    state.set(key, `${level}:${Math.max(last, now)}`, {
      ttlMs: Math.ceil((capacity - level) / limit),
    });
    return [allowed, Math.floor(level / window), retry];
  },
});

/** Takes `cost` tokens from the bucket at `key` if it holds them; bad parameters are a RangeError. */
export async function takeTokens(
  state: SharedState,
  key: string,
  params: TokenBucketParams,
): Promise<TokenBucketResult> {
  assertParams(params);
  const { burst, limit, windowMs, cost, nowMs } = params;
  const [allowed, remaining, retryAfterMs] = await state.run(
    tokenBucketScript,
    [key],
    [burst, limit, windowMs, cost, nowMs],
  );
  return { allowed: allowed === 1, remaining, retryAfterMs };
}

function assertParams({ burst, limit, windowMs, cost, nowMs }: TokenBucketParams): void {
  assertPositiveIntegers({ burst, limit, windowMs, cost });
  if (cost > burst)
    throw new RangeError(`cost ${cost} exceeds burst ${burst}: it could never be allowed`);
  // The level reaches burst × windowMs units; beyond 2^53 neither Lua nor JavaScript is exact.
  if (!Number.isSafeInteger(burst * windowMs))
    throw new RangeError('burst × windowMs must stay below 2^53');
  if (!Number.isSafeInteger(nowMs) || nowMs < 0)
    throw new RangeError(`nowMs must be a non-negative integer, got ${nowMs}`);
}
