/**
 * Mirrors: copies in shared state of records the store keeps (ended sessions, blocks), for the
 * pods that decide security questions without a store (ws pods) or before reading it. A mirror
 * can only say "absent" if it is complete: after Redis lost its data an empty mirror would
 * re-open every ended session and lift every block. So the api side rebuilds the mirrors from
 * the store and then writes a completeness marker (mirror-keeper.ts); a lookup checks the marker
 * in the same atomic step and answers `unknown` without it, and the caller refuses (503, 4503)
 * or asks the store instead of trusting an empty cache.
 *
 * Writes keep a mirror never less strict than the store: what restricts (a session ended, a
 * block) is written to the mirror first and then to the store, what relaxes (an unblock) to the
 * store first and then to the mirror, so a failure between the two can only leave the mirror
 * stricter, never re-open anything.
 */
import { defineScript } from './shared-state.js';
import type { SharedState } from './shared-state.js';

/** Set, without expiry, once every mirror has been rebuilt from the store. Its value is the rebuild's id. */
export const MIRRORS_COMPLETE_KEY = 'mirrors:complete';
/** The id of the rebuild in progress; a flush during the rebuild removes it, and the rebuild does not count. */
export const MIRRORS_REBUILDING_KEY = 'mirrors:rebuilding';

/** What a mirror says about some keys: one exists, none does, or it cannot vouch (incomplete). */
export type MirrorAnswer = 'found' | 'absent' | 'unknown';

/** KEYS: the completeness marker and two keys to test. -1 without the marker, else how many exist. */
const lookUp = defineScript<[], number>({
  name: 'mirror-lookup',
  keys: 3,
  lua: `if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('EXISTS', KEYS[2], KEYS[3])`,
  local: (state, [marker, ...keys]) => (state.get(marker!) === null ? -1 : keys.filter((key) => state.get(key) !== null).length),
});

/** Whether either key exists in a complete mirror (pass one key twice to test one). */
export async function lookUpMirror(state: SharedState, keys: readonly [string, string]): Promise<MirrorAnswer> {
  const found = await state.run(lookUp, [MIRRORS_COMPLETE_KEY, ...keys], []);
  return found < 0 ? 'unknown' : found > 0 ? 'found' : 'absent';
}

/**
 * Which of many keys exist in a complete mirror, in one round trip (MGET with the marker);
 * `unknown` when the mirror cannot vouch.
 */
export async function lookUpMirrorEach(state: SharedState, keys: readonly string[]): Promise<boolean[] | 'unknown'> {
  const [marker, ...values] = await state.getMany([MIRRORS_COMPLETE_KEY, ...keys]);
  return marker == null ? 'unknown' : values.map((value) => value !== null);
}

/** KEYS: rebuilding, complete. ARGV: the rebuild's id. Marks the mirrors complete if the rebuild still counts (1), else 0. */
export const completeRebuild = defineScript<[rebuildId: string], number>({
  name: 'mirror-complete',
  keys: 2,
  lua: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return 1`,
  local: (state, [rebuilding, complete], [rebuildId]) => {
    if (state.get(rebuilding!) !== rebuildId) return 0;
    state.set(complete!, rebuildId!);
    state.delete(rebuilding!);
    return 1;
  },
});
