/**
 * Argument checks that both implementations run before touching their store, so that
 * invalid input fails the same way in memory as in Redis (and before a round trip).
 */
import type { ScriptArg, ScriptReply, SharedStateScript } from './shared-state.js';

/** Redis accepts only a positive integer for PX / PEXPIRE in SET and INCRBY windows. */
export function assertTtlMs(ttlMs: number | undefined): void {
  if (ttlMs !== undefined && (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)) {
    throw new RangeError(`ttlMs must be a positive integer, got ${ttlMs}`);
  }
}

/** INCRBY takes a 64-bit integer; JavaScript numbers are exact up to 2^53. */
export function assertIncrement(n: number): void {
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(`increment must be a safe integer, got ${n}`);
  }
}

/** Checks the key count and returns the arguments as the strings a script sees in ARGV. */
export function scriptArguments<TArgs extends readonly ScriptArg[], TResult extends ScriptReply>(
  script: SharedStateScript<TArgs, TResult>,
  keys: readonly string[],
  args: TArgs,
): string[] {
  if (keys.length !== script.keys) {
    throw new RangeError(`script ${script.name} takes ${script.keys} keys, got ${keys.length}`);
  }
  return args.map(String);
}
