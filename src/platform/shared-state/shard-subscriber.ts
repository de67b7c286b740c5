/**
 * One master's sharded subscriber connection on a Redis Cluster: SSUBSCRIBE for the channels
 * whose slots that master serves. It reconnects by itself, forever (the shared retry strategy),
 * but does not resubscribe by itself (`autoResubscribe: false`): after each (re)connection its
 * owner (sharded-subscriptions.ts) tells it which channels belong here now (`sync`), so a channel
 * follows its slot when the slot map changes, and the owner learns which subscriptions came back.
 */
import { Redis } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { closeConnection } from './redis-connection.js';

export interface ShardSubscriberEvents {
  message(channel: string, message: string): void;
  /** The connection is (again) up, with no subscription: time to sync. */
  ready(): void;
  /** The connection dropped while it held subscriptions; `cause` is the last error it reported. */
  lost(cause: string | undefined): void;
}

export class ShardSubscriber {
  private readonly connection: Redis;
  /** Channels Redis confirmed on the current connection; emptied when it drops. */
  private readonly confirmed = new Set<string>();
  /** Channels whose SSUBSCRIBE from `sync` awaits its reply, so overlapping syncs do not send it twice. */
  private readonly pending = new Set<string>();
  /** Set by `close()`: the connection's end is then no loss to report. */
  private closing = false;

  constructor(options: RedisOptions, events: ShardSubscriberEvents) {
    // No ready check: it would wait on INFO from a master that accepts connections but does not
    // answer, and a subscriber needs nothing from the server's state.
    this.connection = new Redis({ ...options, autoResubscribe: false, enableReadyCheck: false });
    let lastError: string | undefined;
    this.connection.on('error', (error: Error) => {
      lastError = error.message;
    });
    this.connection.on('smessage', (channel: string, message: string) =>
      events.message(channel, message),
    );
    this.connection.on('ready', () => events.ready());
    this.connection.on('close', () => {
      const held = this.confirmed.size > 0;
      this.confirmed.clear();
      if (held && !this.closing) events.lost(lastError);
    });
    // A failed first attempt is retried by the retry strategy, like every later one.
    this.connection.connect().catch(() => undefined);
  }

  /** Whether `channel` is subscribed on this connection now. */
  holds(channel: string): boolean {
    return this.connection.status === 'ready' && this.confirmed.has(channel);
  }

  /**
   * Sends SSUBSCRIBE (a repeat is a no-op for Redis) and resolves once Redis confirmed it. On a
   * connection being opened (the first subscription to a master) it waits for the attempt's
   * outcome, at most the connect timeout; otherwise a connection that is down rejects at once.
   */
  async subscribe(channel: string): Promise<void> {
    await this.attemptSettled();
    await this.connection.ssubscribe(channel);
    this.confirmed.add(channel);
  }

  /** Nothing to tell Redis about a channel this connection does not hold (a dropped connection holds none). */
  async unsubscribe(channel: string): Promise<void> {
    if (!this.confirmed.delete(channel)) return;
    await this.connection.sunsubscribe(channel);
  }

  /**
   * Makes this connection hold exactly `channels`: SSUBSCRIBE for those it lacks, SUNSUBSCRIBE for
   * those that are no longer wanted here. Resolves with the channels it subscribed; those that
   * failed are tried at the next sync. The lists are taken before the first await, so they match
   * `channels` as the caller computed them.
   */
  async sync(channels: readonly string[]): Promise<string[]> {
    if (this.connection.status !== 'ready') return []; // its 'ready' brings another sync
    const wanted = new Set(channels);
    const extra = [...this.confirmed].filter((channel) => !wanted.has(channel));
    const missing = channels.filter(
      (channel) => !this.confirmed.has(channel) && !this.pending.has(channel),
    );
    for (const channel of missing) this.pending.add(channel);
    const unsubscribed = Promise.allSettled(extra.map((channel) => this.unsubscribe(channel)));
    const subscribed = await Promise.all(
      missing.map((channel) =>
        this.subscribe(channel)
          .then(
            () => [channel],
            () => [],
          )
          .finally(() => this.pending.delete(channel)),
      ),
    );
    await unsubscribed;
    return subscribed.flat();
  }

  /** Resolves when no connection attempt is under way: the connection is up, or that attempt failed. */
  private attemptSettled(): Promise<void> {
    const status = this.connection.status;
    if (status !== 'connecting' && status !== 'connect') return Promise.resolve();
    return new Promise((resolve) => {
      const settled = () => {
        this.connection.off('ready', settled);
        this.connection.off('close', settled);
        resolve();
      };
      this.connection.on('ready', settled);
      this.connection.on('close', settled);
    });
  }

  async ping(): Promise<void> {
    await this.connection.ping();
  }

  close(): Promise<void> {
    this.closing = true;
    return closeConnection(this.connection);
  }
}
