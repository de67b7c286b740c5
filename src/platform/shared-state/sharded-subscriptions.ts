/**
 * Sharded pub/sub on a Redis Cluster: one subscriber connection per master that serves a wanted
 * channel's slot (shard-subscriber.ts), kept by this class from the cluster client's slot map.
 *
 * Why not ioredis's own `shardedSubscribers`: in ioredis 6.0.0 an outage of every master for a
 * few seconds leaves them dead for good. The cluster client tears its subscriber group down
 * (`ClusterSubscriberGroup.stop()`) while the group's `reset()` awaits a subscriber's connect;
 * `stop()` removes the connection's listeners before its close is emitted, so that connect
 * promise never settles, the group stays `isResetting` forever and drops every later reset:
 * commands recover, subscriptions never do. Here each connection reconnects by itself, and the
 * subscriptions are reconciled with the slot map after every (re)connection and every refresh of
 * the map (the cluster client re-reads it every 2 s), with nothing that can stay pending.
 *
 * Readiness (`check`) holds only while every wanted channel is subscribed on the live connection
 * of the master serving its slot: a pod whose subscriptions are not (yet) back answers 503.
 */
import calculateSlot from 'cluster-key-slot';
import type { Cluster, RedisOptions } from 'ioredis';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import type { ChannelSubscriber, SubscriberEvents } from './channel-subscriber.js';
import { ShardSubscriber } from './shard-subscriber.js';
import type { SharedStateLogger } from './shared-state.js';

export class ShardedSubscriptions implements ChannelSubscriber {
  /** One subscriber per master, by its node key (`host:port`, as in the cluster's slot map). */
  private readonly shards = new Map<string, ShardSubscriber>();
  /**
   * The slot of each wanted channel, computed once: a ws pod wants one channel per connected user
   * (tens of thousands), and every refresh of the slot map (every 2 s) and every readiness check
   * looks each one up.
   */
  private readonly slots = new Map<string, number>();
  /** Channels subscribed once already: their next subscription by a sync is a restoration. */
  private readonly delivered = new Set<string>();
  /** False from a lost subscriber connection until every subscription is back (logged once each way). */
  private healthy = true;
  private closed = false;

  constructor(
    private readonly cluster: Cluster,
    /** Connection options of a node (credentials, TLS, the fail-fast settings); host and port come from the slot map. */
    private readonly nodeOptions: RedisOptions,
    private readonly events: SubscriberEvents,
    private readonly logger: SharedStateLogger,
  ) {
    cluster.on('refresh', () => void this.reconcile());
  }

  async subscribe(channel: string): Promise<void> {
    const owner = this.ownerOf(channel);
    if (owner === undefined)
      throw new DependencyUnavailableError('redis', 'the Redis Cluster slot map is not known yet');
    await this.shardAt(owner).subscribe(channel);
    this.delivered.add(channel);
  }

  /** Wherever it is held: after a slot moved, that may be the master that served it before. */
  async unsubscribe(channel: string): Promise<void> {
    this.delivered.delete(channel);
    this.slots.delete(channel);
    await Promise.all([...this.shards.values()].map((shard) => shard.unsubscribe(channel)));
  }

  async check(): Promise<void> {
    const missing = this.missing();
    if (missing > 0)
      throw new DependencyUnavailableError(
        'redis',
        `${missing} sharded subscriptions are not in place`,
      );
    await Promise.all([...this.shards.values()].map((shard) => shard.ping()));
  }

  async close(): Promise<void> {
    this.closed = true;
    const shards = [...this.shards.values()];
    this.shards.clear();
    await Promise.all(shards.map((shard) => shard.close()));
  }

  /**
   * Subscribes every wanted channel on the master serving its slot now, and drops what is held
   * elsewhere: a master that serves no wanted channel any more loses its connection. Then tells
   * the listeners of each channel subscribed again after a loss that they may have missed
   * messages. Idempotent, so overlapping runs (a reconnection during a refresh) do no harm.
   */
  private async reconcile(): Promise<void> {
    if (this.closed) return;
    const byOwner = new Map<string, string[]>();
    const wanted = this.events.channels();
    // A subscription refused in an outage is given up without an unsubscribe: forget its slot here.
    if (this.slots.size > wanted.length) {
      const kept = new Set(wanted);
      for (const channel of this.slots.keys()) if (!kept.has(channel)) this.slots.delete(channel);
    }
    for (const channel of wanted) {
      const owner = this.ownerOf(channel);
      if (owner === undefined) continue;
      const channels = byOwner.get(owner);
      if (channels === undefined) byOwner.set(owner, [channel]);
      else channels.push(channel);
    }
    for (const [owner, shard] of this.shards) {
      if (byOwner.has(owner)) continue;
      this.shards.delete(owner);
      void shard.close();
    }
    const subscribed = await Promise.all(
      [...byOwner].map(([owner, channels]) => this.shardAt(owner).sync(channels)),
    );
    for (const channel of subscribed.flat())
      if (this.delivered.has(channel)) this.events.restored(channel);
    if (!this.healthy && !this.closed && this.missing() === 0) {
      this.healthy = true;
      this.logger.info({ role: 'sharded subscriber' }, 'Redis sharded subscriptions restored');
    }
  }

  /** How many wanted channels are not subscribed on the live connection of their slot's master. */
  private missing(): number {
    let missing = 0;
    for (const channel of this.events.channels()) {
      const owner = this.ownerOf(channel);
      if (owner === undefined || this.shards.get(owner)?.holds(channel) !== true) missing += 1;
    }
    return missing;
  }

  /** The node key of the master serving the channel's slot, per the cluster client's last slot map. */
  private ownerOf(channel: string): string | undefined {
    let slot = this.slots.get(channel);
    if (slot === undefined) this.slots.set(channel, (slot = calculateSlot(channel)));
    return this.cluster.slots[slot]?.[0];
  }

  private shardAt(owner: string): ShardSubscriber {
    let shard = this.shards.get(owner);
    if (shard === undefined) {
      const separator = owner.lastIndexOf(':');
      shard = new ShardSubscriber(
        {
          ...this.nodeOptions,
          host: owner.slice(0, separator),
          port: Number(owner.slice(separator + 1)),
        },
        {
          message: (channel, message) => this.events.message(channel, message),
          ready: () => void this.reconcile(),
          lost: (cause) => this.lost(cause),
        },
      );
      this.shards.set(owner, shard);
    }
    return shard;
  }

  private lost(cause: string | undefined): void {
    if (!this.healthy || this.closed) return;
    this.healthy = false;
    this.logger.warn(
      { cause, role: 'sharded subscriber' },
      'Redis sharded subscriptions lost; they are made again when their masters are back',
    );
  }
}
