/**
 * A channel every pod listens to (session endings, follow changes, new connections), split into
 * one channel per shard bucket (shard-buckets.ts): a message goes to the bucket of what it is
 * about, so on a Redis Cluster the publishing spreads over the shards and a script can publish it
 * atomically with the keys of that bucket; a listener subscribes to every bucket.
 */
import { ALL_SHARD_BUCKETS, shardBucketOf, shardBucketTag } from './shard-buckets.js';
import type { SharedState, Unsubscribe } from './shared-state.js';

export class BucketedChannel {
  constructor(private readonly name: string) {}

  /** The channel of `routingId`'s bucket (pass it among a script's KEYS to publish from there). */
  of(routingId: string): string {
    return this.inBucket(shardBucketOf(routingId));
  }

  publish(state: SharedState, routingId: string, message: string): Promise<void> {
    return state.publish(this.of(routingId), message);
  }

  /**
   * Hears every bucket. `onResubscribed` is called once for each loss and return of delivery,
   * however many buckets it took with it (they come back together, on one connection or one
   * cluster node).
   */
  async subscribeAll(
    state: SharedState,
    handler: (message: string) => void | Promise<void>,
    onResubscribed?: () => void,
  ): Promise<Unsubscribe> {
    let pending = false;
    const resubscribed =
      onResubscribed &&
      (() => {
        if (pending) return;
        pending = true;
        setImmediate(() => {
          pending = false;
          onResubscribed();
        });
      });
    const subscribed = await Promise.allSettled(
      ALL_SHARD_BUCKETS.map((bucket) =>
        state.subscribe(this.inBucket(bucket), handler, resubscribed),
      ),
    );
    const unsubscribes = subscribed.flatMap((outcome) =>
      outcome.status === 'fulfilled' ? [outcome.value] : [],
    );
    const unsubscribeAll = async () => {
      await Promise.all(unsubscribes.map((unsubscribe) => unsubscribe()));
    };
    const failed = subscribed.find(
      (outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected',
    );
    if (failed) {
      await unsubscribeAll().catch(() => undefined);
      throw failed.reason;
    }
    return unsubscribeAll;
  }

  private inBucket(bucket: number): string {
    return `${shardBucketTag(bucket)}:${this.name}`;
  }
}
