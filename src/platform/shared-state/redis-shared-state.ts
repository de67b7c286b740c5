/**
 * SharedState on Redis (ioredis), shared by every pod. On one Redis, two connections: one for
 * commands, one in subscriber mode for pub/sub (plain-subscriber.ts). On a Redis Cluster
 * (REDIS_CLUSTER), one ioredis Cluster client for commands, each routed to the shard of its slot,
 * and sharded pub/sub: SPUBLISH, and SSUBSCRIBE through one subscriber connection per master
 * (sharded-subscriptions.ts), so a message travels only to the shard of its channel and the pods
 * subscribed there. The prefix is added here, not through ioredis's `keyPrefix`, because ioredis
 * does not prefix pub/sub channels and the prefix must cover both.
 *
 * Every connection has the fail-fast settings of redis-connection.ts (see the outage notes in
 * shared-state.ts). A command that fails because Redis cannot answer (not connected, timed out,
 * connection lost, or a reply meaning "not now" such as LOADING) rejects with
 * DependencyUnavailableError, so callers answer 503 instead of treating an outage as a bug;
 * Redis's answers to a wrong command (ReplyError) and argument errors keep their own type.
 */
import { createHash } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, ReplyError } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import { assertIncrement, assertTtlMs, scriptArguments } from './argument-checks.js';
import type { ChannelSubscriber, SubscriberEvents } from './channel-subscriber.js';
import { deliverMessage } from './deliver-message.js';
import { incrementScript } from './increment-script.js';
import { PlainSubscriber } from './plain-subscriber.js';
import { CONNECTION_OPTIONS, closeConnection, reportConnectionState } from './redis-connection.js';
import type { Connection } from './redis-connection.js';
import { ShardedSubscriptions } from './sharded-subscriptions.js';
import type {
  MessageHandler,
  ScriptArg,
  ScriptReply,
  SetOptions,
  SharedState,
  SharedStateLogger,
  SharedStateScript,
  Unsubscribe,
} from './shared-state.js';

export interface RedisSharedStateOptions {
  url: string;
  /** REDIS_CLUSTER: `url` is one node of a Redis Cluster (a seed); the client finds the others. */
  cluster: boolean;
  keyPrefix: string;
  logger: SharedStateLogger;
}

/** How a cluster client rides out a node's loss: refresh the slot map and retry within a bounded time. */
const CLUSTER_RETRY_DELAY_MS = 100;
const SLOTS_REFRESH_INTERVAL_MS = 2000;

interface Listener {
  readonly deliver: (message: string) => void;
  readonly resubscribed: (() => void) | undefined;
}

/** A script as sent to Redis: `PUBLISH` bound to the pub/sub of the deployment, and its SHA1 for EVALSHA. */
interface LoadedScript {
  readonly source: string;
  readonly sha: string;
}

export class RedisSharedState implements SharedState {
  /** Listeners per prefixed channel; a channel is subscribed in Redis while it has any. */
  private readonly listeners = new Map<string, Set<Listener>>();
  /** Each script's source and SHA1, computed once per script. */
  private readonly scripts = new WeakMap<object, LoadedScript>();
  private readonly subscriber: ChannelSubscriber;
  private closed: Promise<void> | undefined;

  /** `openSubscriber` builds the subscriber side, given what it needs of the listeners kept here. */
  private constructor(
    private readonly commands: Connection,
    private readonly keyPrefix: string,
    private readonly logger: SharedStateLogger,
    openSubscriber: (events: SubscriberEvents) => ChannelSubscriber,
  ) {
    this.subscriber = openSubscriber({
      channels: () => [...this.listeners.keys()],
      message: (channel, message) => {
        for (const listener of this.listeners.get(channel) ?? []) listener.deliver(message);
      },
      restored: (channel) => {
        for (const listener of this.listeners.get(channel) ?? []) listener.resubscribed?.();
      },
    });
  }

  /**
   * Connects both connections. If Redis does not answer, this still resolves once the
   * first attempt has failed: the process starts, reports not-ready through `ping()`,
   * and ioredis keeps reconnecting in the background.
   */
  static async connect(options: RedisSharedStateOptions): Promise<RedisSharedState> {
    if (options.cluster) return RedisSharedState.connectCluster(options);
    const commands = new Redis(options.url, {
      ...CONNECTION_OPTIONS,
      connectionName: `${options.keyPrefix}commands`,
    });
    const subscriber = commands.duplicate({ connectionName: `${options.keyPrefix}subscriber` });
    for (const [connection, role] of [
      [commands, 'commands'],
      [subscriber, 'subscriber'],
    ] as const) {
      reportConnectionState(connection, role, options.logger);
    }
    const state = new RedisSharedState(
      commands,
      options.keyPrefix,
      options.logger,
      (events) => new PlainSubscriber(subscriber, events),
    );
    // A failed first attempt is logged by reportConnectionState, and ioredis retries.
    await Promise.allSettled([commands.connect(), subscriber.connect()]);
    return state;
  }

  /**
   * The same fail-fast settings per node; the cluster client itself queues nothing while it is
   * down, reconnects forever, and after a node's loss refreshes the slot map and retries a
   * redirected command a bounded number of times. Subscriptions are not the cluster client's
   * (no `shardedSubscribers`): ShardedSubscriptions keeps them, from its slot map.
   */
  private static async connectCluster(options: RedisSharedStateOptions): Promise<RedisSharedState> {
    const { hostname, port, username, password, protocol } = new URL(options.url);
    const nodeOptions: RedisOptions = {
      ...CONNECTION_OPTIONS,
      ...(username === '' ? {} : { username: decodeURIComponent(username) }),
      ...(password === '' ? {} : { password: decodeURIComponent(password) }),
      ...(protocol === 'rediss:' ? { tls: {} } : {}),
    };
    const cluster = new Cluster([{ host: hostname, port: Number(port || 6379) }], {
      lazyConnect: true,
      enableOfflineQueue: false,
      clusterRetryStrategy: CONNECTION_OPTIONS.retryStrategy,
      retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
      maxRedirections: 4,
      // Re-reads the slot map every 2 s: besides following resharding, each refresh makes the
      // sharded subscriptions follow it (a channel whose slot moved is subscribed on its new master).
      slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
      redisOptions: { ...nodeOptions, connectionName: `${options.keyPrefix}cluster` },
    });
    reportConnectionState(cluster, 'cluster', options.logger);
    const subscriberOptions = { ...nodeOptions, connectionName: `${options.keyPrefix}ssubscriber` };
    const state = new RedisSharedState(
      cluster,
      options.keyPrefix,
      options.logger,
      (events) => new ShardedSubscriptions(cluster, subscriberOptions, events, options.logger),
    );
    // As for one Redis: a failed first attempt is logged, and the client keeps trying.
    await cluster.connect().catch(() => undefined);
    return state;
  }

  async get(key: string): Promise<string | null> {
    return answered(this.commands.get(this.keyPrefix + key));
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    if (keys.length === 0) return [];
    return answered(this.commands.mget(keys.map((key) => this.keyPrefix + key)));
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    assertTtlMs(options.ttlMs);
    const expiry = options.ttlMs === undefined ? [] : ['PX', options.ttlMs];
    const condition = options.onlyIfAbsent === true ? ['NX'] : [];
    const reply = await answered(
      this.commands.call('SET', this.keyPrefix + key, value, ...expiry, ...condition),
    );
    return reply === 'OK';
  }

  async take(key: string): Promise<string | null> {
    return answered(this.commands.getdel(this.keyPrefix + key));
  }

  async delete(key: string): Promise<boolean> {
    return (await answered(this.commands.del(this.keyPrefix + key))) > 0;
  }

  async exists(key: string): Promise<boolean> {
    return (await answered(this.commands.exists(this.keyPrefix + key))) > 0;
  }

  async incrementBy(key: string, n: number, ttlMs?: number): Promise<number> {
    assertIncrement(n);
    assertTtlMs(ttlMs);
    return this.run(incrementScript, [key], [n, ttlMs ?? 0]);
  }

  async run<TArgs extends readonly ScriptArg[], TResult extends ScriptReply>(
    script: SharedStateScript<TArgs, TResult>,
    keys: readonly string[],
    args: TArgs,
  ): Promise<TResult> {
    const argv = scriptArguments(script, keys, args);
    const fullKeys = keys.map((key) => this.keyPrefix + key);
    const loaded = this.loaded(script);
    try {
      return (await this.commands.evalsha(
        loaded.sha,
        script.keys,
        ...fullKeys,
        ...argv,
      )) as TResult;
    } catch (error) {
      // Not in this server's script cache yet (first use, restart, failover): EVAL loads it.
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw asOutage(error);
      return (await answered(
        this.commands.eval(loaded.source, script.keys, ...fullKeys, ...argv),
      )) as TResult;
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    const fullChannel = this.keyPrefix + channel;
    await answered(
      this.sharded
        ? this.commands.spublish(fullChannel, message)
        : this.commands.publish(fullChannel, message),
    );
  }

  /** Resolves once Redis has confirmed the subscription (see the ChannelSubscriber in use). */
  async subscribe(
    channel: string,
    handler: MessageHandler,
    onResubscribed?: () => void,
  ): Promise<Unsubscribe> {
    const fullChannel = this.keyPrefix + channel;
    const listener: Listener = {
      deliver: (message) => deliverMessage(handler, message, fullChannel, this.logger),
      resubscribed: onResubscribed,
    };
    let listeners = this.listeners.get(fullChannel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(fullChannel, listeners);
    }
    listeners.add(listener);
    try {
      await this.subscriber.subscribe(fullChannel);
    } catch (error) {
      this.detach(fullChannel, listener);
      throw asOutage(error);
    }
    // Rejects when Redis cannot be told (outage); the handler is detached either way.
    return async () => {
      if (this.detach(fullChannel, listener))
        await answered(this.subscriber.unsubscribe(fullChannel));
    };
  }

  /** On a cluster the channel's own shard is asked: only it knows the channel's sharded subscribers. */
  async hasSubscribers(channel: string): Promise<boolean> {
    const fullChannel = this.keyPrefix + channel;
    const reply =
      this.commands instanceof Cluster
        ? this.shardOf(this.commands, fullChannel).pubsub('SHARDNUMSUB', fullChannel)
        : this.commands.pubsub('NUMSUB', fullChannel);
    const [, count] = (await answered(reply)) as [string, number];
    return count > 0;
  }

  /** On a cluster every master must answer, since state lives on all of them; and the subscriber side must be in place. */
  async ping(): Promise<void> {
    if (!(this.commands instanceof Cluster)) {
      await answered(Promise.all([this.commands.ping(), this.subscriber.check()]));
      return;
    }
    const masters = this.commands.status === 'ready' ? this.commands.nodes('master') : [];
    if (masters.length === 0)
      throw new DependencyUnavailableError('redis', 'the Redis Cluster is not connected');
    await answered(Promise.all([...masters.map((node) => node.ping()), this.subscriber.check()]));
  }

  /** Idempotent: disconnecting an ended ioredis connection again would leave a 2 s timer. */
  close(): Promise<void> {
    this.listeners.clear();
    this.closed ??= Promise.all([closeConnection(this.commands), this.subscriber.close()]).then(
      () => undefined,
    );
    return this.closed;
  }

  private get sharded(): boolean {
    return this.commands instanceof Cluster;
  }

  /** The script with `PUBLISH` bound: sharded pub/sub on a cluster, plain on one Redis. */
  private loaded(script: SharedStateScript<readonly ScriptArg[], ScriptReply>): LoadedScript {
    let loaded = this.scripts.get(script);
    if (loaded === undefined) {
      const source = `local PUBLISH = '${this.sharded ? 'SPUBLISH' : 'PUBLISH'}'\n${script.lua}`;
      loaded = { source, sha: createHash('sha1').update(source).digest('hex') };
      this.scripts.set(script, loaded);
    }
    return loaded;
  }

  /** The master connection serving the slot of a key or shard channel (for what ioredis cannot route by itself). */
  private shardOf(cluster: Cluster, key: string): Redis {
    const nodeKey = cluster.slots[calculateSlot(key)]?.[0];
    const node = cluster
      .nodes('master')
      .find((each) => `${each.options.host}:${each.options.port}` === nodeKey);
    if (node === undefined)
      throw new DependencyUnavailableError('redis', 'no Redis Cluster node serves the slot');
    return node;
  }

  /** Removes a listener locally; true when it was its channel's last one. */
  private detach(fullChannel: string, listener: Listener): boolean {
    const listeners = this.listeners.get(fullChannel);
    if (listeners === undefined || !listeners.delete(listener) || listeners.size > 0) return false;
    this.listeners.delete(fullChannel);
    return true;
  }
}

/** Redis replies that mean "not now" (loading, failing over) rather than "wrong command". */
const TRANSIENT_REPLY = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN)\b/;

/** An error of a command: an outage unless Redis answered that the command itself is wrong. */
function asOutage(error: unknown): unknown {
  if (error instanceof DependencyUnavailableError) return error;
  const isAnswer = error instanceof ReplyError && !TRANSIENT_REPLY.test((error as Error).message);
  if (isAnswer || error instanceof RangeError || error instanceof TypeError) return error;
  return new DependencyUnavailableError('redis', 'Redis did not answer', { cause: error });
}

/** The command's reply, or its failure with outages told apart (asOutage). */
async function answered<T>(command: Promise<T>): Promise<T> {
  try {
    return await command;
  } catch (error) {
    throw asOutage(error);
  }
}
