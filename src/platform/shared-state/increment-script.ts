/**
 * `incrementBy` as one script, so both implementations share one definition of it and
 * an increment that fails (the value is not an integer) changes nothing, TTL included.
 */
import { defineScript } from './shared-state.js';

const REDIS_INTEGER = /^-?(0|[1-9]\d{0,18})$/;

/** INCRBY KEYS[1] by ARGV[1]; if ARGV[2] > 0 and the key has no expiry, it gets ARGV[2] ms. */
export const incrementScript = defineScript<[n: number, ttlMs: number], number>({
  name: 'increment-by',
  keys: 1,
  lua: `local value = redis.call('INCRBY', KEYS[1], ARGV[1])
if tonumber(ARGV[2]) > 0 and redis.call('PTTL', KEYS[1]) == -1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return value`,
  local: (state, keys, [n, ttlMs]) => {
    const key = keys[0]!; // run() checked the key count
    const next = parseRedisInteger(state.get(key) ?? '0') + Number(n);
    if (!Number.isSafeInteger(next)) throw new Error('ERR increment or decrement would overflow');
    state.set(key, String(next), { keepTtl: true });
    if (Number(ttlMs) > 0 && state.pttl(key) === -1) state.pexpire(key, Number(ttlMs));
    return next;
  },
});

/** INCRBY's rule: the stored value must be a canonical 64-bit integer. */
function parseRedisInteger(value: string): number {
  const parsed = Number(value);
  if (!REDIS_INTEGER.test(value) || !Number.isSafeInteger(parsed)) {
    throw new Error('ERR value is not an integer or out of range');
  }
  return parsed;
}
