/**
 * Mirrors: copies in shared state of records the store keeps (ended sessions, blocks), for the
 * pods that decide security questions without a store (ws pods) or before reading it. A mirror
 * can only say "absent" if it is complete: after Redis lost its data an empty mirror would
 * re-open every ended session and lift every block. So the api side rebuilds the mirrors from
 * the store and then writes a completeness marker (mirror-keeper.ts); a lookup checks the marker
 * in the same atomic step and answers `unknown` without it, and the caller refuses (503, 4503)
 * or asks the store instead of trusting an empty cache.
 *
 * Redis Cluster: a mirror's keys are spread over the shard buckets (shard-buckets.ts) by a routing
 * id (a session, a user, a pair of users), and each bucket has its own marker, in the slot of its
 * keys, so a lookup and its marker check stay one single-slot step. A cluster node that restarts
 * empty loses the markers of its buckets only: those answer `unknown` until the keeper has
 * rebuilt them, the others keep answering.
 *
 * Writes keep a mirror never less strict than the store: what restricts (a session ended, a
 * block) is written to the mirror first and then to the store, what relaxes (an unblock) to the
 * store first and then to the mirror, so a failure between the two can only leave the mirror
 * stricter, never re-open anything.
 */
import { defineScript } from './shared-state.js';
import type { SharedState } from './shared-state.js';
import { shardBucketOf, shardBucketTag } from './shard-buckets.js';

/** A bucket's marker: set, without expiry, once every mirror has been rebuilt from the store. Its value is the rebuild's id. */
export const mirrorsCompleteKey = (bucket: number) => `${shardBucketTag(bucket)}:mirrors:complete`;
/** The id of the bucket's rebuild in progress; a flush during the rebuild removes it, and the rebuild does not count there. */
export const mirrorsRebuildingKey = (bucket: number) =>
  `${shardBucketTag(bucket)}:mirrors:rebuilding`;

/** The key of a mirrored record, in the bucket of `routingId` (the id its lookups are routed by). */
export function mirrorKey(routingId: string, name: string): string {
  return `${shardBucketTag(shardBucketOf(routingId))}:${name}`;
}

/** What a mirror says about some keys: one exists, none does, or it cannot vouch (incomplete). */
export type MirrorAnswer = 'found' | 'absent' | 'unknown';

/** KEYS: the completeness marker and two keys to test. -1 without the marker, else how many exist. */
const lookUp = defineScript<[], number>({
  name: 'mirror-lookup',
  keys: 3,
  lua: `if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
return redis.call('EXISTS', KEYS[2], KEYS[3])`,
  local: (state, [marker, ...keys]) =>
    state.get(marker!) === null ? -1 : keys.filter((key) => state.get(key) !== null).length,
});

/** Whether either key (both made by `mirrorKey` with `routingId`) exists in a complete mirror (pass one key twice to test one). */
export async function lookUpMirror(
  state: SharedState,
  routingId: string,
  keys: readonly [string, string],
): Promise<MirrorAnswer> {
  const found = await state.run(
    lookUp,
    [mirrorsCompleteKey(shardBucketOf(routingId)), ...keys],
    [],
  );
  return found < 0 ? 'unknown' : found > 0 ? 'found' : 'absent';
}

/**
 * The value of one mirrored key (made by `mirrorKey` with `routingId`), in one round trip with its
 * marker; `unknown` while the mirror is incomplete (boxed, so that no stored value can pass for it).
 */
export async function readMirror(
  state: SharedState,
  routingId: string,
  key: string,
): Promise<{ readonly value: string | null } | 'unknown'> {
  const [marker, value] = await state.getMany([mirrorsCompleteKey(shardBucketOf(routingId)), key]);
  return marker == null ? 'unknown' : { value: value ?? null };
}

/**
 * Which of many records exist in a complete mirror: one round trip (MGET with the marker) per
 * bucket involved, all at once; `unknown` when any of those buckets cannot vouch.
 */
export async function lookUpMirrorEach(
  state: SharedState,
  records: readonly { routingId: string; key: string }[],
): Promise<boolean[] | 'unknown'> {
  const byBucket = new Map<number, number[]>();
  records.forEach(({ routingId }, index) => {
    const bucket = shardBucketOf(routingId);
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), index]);
  });
  const found = new Array<boolean>(records.length).fill(false);
  const answers = await Promise.all(
    [...byBucket].map(async ([bucket, indexes]) => {
      const [marker, ...values] = await state.getMany([
        mirrorsCompleteKey(bucket),
        ...indexes.map((index) => records[index]!.key),
      ]);
      if (marker == null) return 'unknown';
      indexes.forEach((index, position) => (found[index] = values[position] !== null));
      return 'known';
    }),
  );
  return answers.includes('unknown') ? 'unknown' : found;
}

/** KEYS: rebuilding, complete (of one bucket). ARGV: the rebuild's id. Marks the bucket complete if the rebuild still counts (1), else 0. */
export const completeRebuild = defineScript<[rebuildId: string], number>({
  name: 'mirror-complete',
  keys: 2,
  lua: `if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
redis.call('SET', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[1])
return 1`,
  local: (state, [rebuilding, complete], [rebuildId]) => {
    if (state.get(rebuilding!) !== rebuildId) return 0;
    state.set(complete!, rebuildId);
    state.delete(rebuilding!);
    return 1;
  },
});
