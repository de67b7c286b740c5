/**
 * Shard buckets: a fixed split of state that has no single owner (the mirrors, the channels
 * every pod listens to) into parts that each carry their own Redis Cluster hash tag, so that
 * their load spreads over up to this many shards while every multi-key step stays inside one
 * slot. A record is routed to its bucket by an id (a session id, a user, a pair of users).
 */

/** How many buckets: well above any shard count this service plans for (docs/capacity.md). */
export const SHARD_BUCKET_COUNT = 256;

export const ALL_SHARD_BUCKETS: readonly number[] = Array.from(
  { length: SHARD_BUCKET_COUNT },
  (_, bucket) => bucket,
);

/** The bucket of a routing id: FNV-1a, stable across processes and versions. */
export function shardBucketOf(routingId: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < routingId.length; index += 1) {
    hash ^= routingId.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % SHARD_BUCKET_COUNT;
}

/** The hash tag of a bucket: every key and channel named with it lands in one slot. */
export function shardBucketTag(bucket: number): string {
  return `{sb:${bucket}}`;
}
