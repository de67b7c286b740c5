/**
 * SharedState on Redis (ioredis), shared by every pod. On one Redis, two connections: one for
 * commands, one in subscriber mode for pub/sub (a subscribed connection is dedicated to
 * its subscriptions). On a Redis Cluster (REDIS_CLUSTER), one ioredis Cluster client: commands go
 * to the shard of their slot, and pub/sub is sharded (SPUBLISH, SSUBSCRIBE through one subscriber
 * connection per master, `shardedSubscribers`), so a message travels only to the shard of its
 * channel and the pods subscribed there. The prefix is added here, not through ioredis's
 * `keyPrefix`, because ioredis does not prefix pub/sub channels and the prefix must cover both.
 *
 * Fail-fast settings (see the outage notes in shared-state.ts):
 * - `enableOfflineQueue: false`: a command issued while disconnected rejects at once
 *   instead of waiting in a queue for a reconnect that may never come;
 * - `maxRetriesPerRequest: 0`: commands in flight when the connection drops reject at
 *   once and are not replayed after reconnect (a late replay of a `take` or `set` could
 *   apply after its caller was told it failed);
 * - `commandTimeout`: bounds a command on a connection that stopped answering;
 * - `retryStrategy`: reconnect forever, backing off to at most 2 s between attempts;
 * - `autoResubscribe` (ioredis default): the subscriber resubscribes after a reconnect; this
 *   class subscribes again too, to learn when that took effect and tell the subscribers that
 *   asked (`onResubscribed`).
 *
 * A command that fails because Redis cannot answer (not connected, timed out, connection lost,
 * or a reply meaning "not now" such as LOADING) rejects with DependencyUnavailableError, so
 * callers answer 503 instead of treating an outage as a bug; Redis's answers to a wrong command
 * (ReplyError) and argument errors keep their own type.
 */
import { createHash } from 'node:crypto';
import calculateSlot from 'cluster-key-slot';
import { Cluster, Redis, ReplyError } from 'ioredis';
import type { RedisOptions } from 'ioredis';
import { DependencyUnavailableError } from '../errors/dependency-unavailable.js';
import { assertIncrement, assertTtlMs, scriptArguments } from './arguments.js';
import { deliverMessage } from './deliver-message.js';
import { incrementScript } from './increment-script.js';
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

const CONNECTION_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1000,
  connectTimeout: 2000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
};

/** How a cluster client rides out a node's loss: refresh the slot map and retry within a bounded time. */
const CLUSTER_RETRY_DELAY_MS = 100;
const SLOTS_REFRESH_INTERVAL_MS = 2000;

/** One Redis, or the client of a Redis Cluster (which routes each command to its slot's shard). */
type Connection = Redis | Cluster;

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
  private closed: Promise<void> | undefined;

  /** `subscriber` is `commands` itself on a cluster (ioredis keeps the sharded subscribers). */
  private constructor(
    private readonly commands: Connection,
    private readonly subscriber: Connection,
    private readonly keyPrefix: string,
    private readonly logger: SharedStateLogger,
  ) {
    const sharded = commands instanceof Cluster;
    subscriber.on(sharded ? 'smessage' : 'message', (channel: string, message: string) => {
      for (const listener of this.listeners.get(channel) ?? []) listener.deliver(message);
    });
    let connectedBefore = false;
    // A cluster's sharded subscribers are all (re)connected and resubscribed when it says 'subscribersReady'.
    subscriber.on(sharded ? 'subscribersReady' : 'ready', () => {
      if (connectedBefore) void this.resubscribed();
      connectedBefore = true;
    });
  }

  /**
   * Connects both connections. If Redis does not answer, this still resolves once the
   * first attempt has failed: the process starts, reports not-ready through `ping()`,
   * and ioredis keeps reconnecting in the background.
   */
  static async connect(options: RedisSharedStateOptions): Promise<RedisSharedState> {
    if (options.cluster) return RedisSharedState.connectCluster(options);
    const commands = new Redis(options.url, { ...CONNECTION_OPTIONS, connectionName: `${options.keyPrefix}commands` });
    const subscriber = commands.duplicate({ connectionName: `${options.keyPrefix}subscriber` });
    for (const [connection, role] of [[commands, 'commands'], [subscriber, 'subscriber']] as const) {
      reportConnectionState(connection, role, options.logger);
    }
    const state = new RedisSharedState(commands, subscriber, options.keyPrefix, options.logger);
    // A failed first attempt is logged by reportConnectionState, and ioredis retries.
    await Promise.allSettled([commands.connect(), subscriber.connect()]);
    return state;
  }

  /**
   * The same fail-fast settings per node; the cluster client itself queues nothing while it is
   * down, reconnects forever, and after a node's loss refreshes the slot map and retries a
   * redirected command a bounded number of times.
   */
  private static async connectCluster(options: RedisSharedStateOptions): Promise<RedisSharedState> {
    const { hostname, port, username, password, protocol } = new URL(options.url);
    const cluster = new Cluster([{ host: hostname, port: Number(port || 6379) }], {
      lazyConnect: true,
      enableOfflineQueue: false,
      shardedSubscribers: true,
      clusterRetryStrategy: CONNECTION_OPTIONS.retryStrategy,
      retryDelayOnFailover: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnClusterDown: CLUSTER_RETRY_DELAY_MS,
      retryDelayOnTryAgain: CLUSTER_RETRY_DELAY_MS,
      maxRedirections: 4,
      // Re-reads the slot map every 2 s: besides following resharding, each refresh replaces a
      // sharded subscriber whose node went away (ioredis does that only on a refresh), so
      // subscriptions come back within seconds of a shard's restart.
      slotsRefreshInterval: SLOTS_REFRESH_INTERVAL_MS,
      redisOptions: {
        ...CONNECTION_OPTIONS,
        connectionName: `${options.keyPrefix}cluster`,
        ...(username === '' ? {} : { username: decodeURIComponent(username) }),
        ...(password === '' ? {} : { password: decodeURIComponent(password) }),
        ...(protocol === 'rediss:' ? { tls: {} } : {}),
      },
    });
    reportConnectionState(cluster, 'cluster', options.logger);
    const state = new RedisSharedState(cluster, cluster, options.keyPrefix, options.logger);
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
    const reply = await answered(this.commands.call('SET', this.keyPrefix + key, value, ...expiry, ...condition));
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
      return (await this.commands.evalsha(loaded.sha, script.keys, ...fullKeys, ...argv)) as TResult;
    } catch (error) {
      // Not in this server's script cache yet (first use, restart, failover): EVAL loads it.
      if (!(error instanceof Error && error.message.startsWith('NOSCRIPT'))) throw asOutage(error);
      return (await answered(this.commands.eval(loaded.source, script.keys, ...fullKeys, ...argv))) as TResult;
    }
  }

  async publish(channel: string, message: string): Promise<void> {
    const fullChannel = this.keyPrefix + channel;
    await answered(this.sharded ? this.commands.spublish(fullChannel, message) : this.commands.publish(fullChannel, message));
  }

  /**
   * Sends SUBSCRIBE for every call (Redis treats a repeat as a no-op), so the promise
   * resolves only once Redis has confirmed the subscription. SUBSCRIBE and UNSUBSCRIBE
   * travel in order on the one subscriber connection, so a racing unsubscribe of the
   * channel's last handler and a new subscribe always end subscribed.
   */
  async subscribe(channel: string, handler: MessageHandler, onResubscribed?: () => void): Promise<Unsubscribe> {
    const fullChannel = this.keyPrefix + channel;
    const listener: Listener = { deliver: (message) => deliverMessage(handler, message, fullChannel, this.logger), resubscribed: onResubscribed };
    let listeners = this.listeners.get(fullChannel);
    if (listeners === undefined) {
      listeners = new Set();
      this.listeners.set(fullChannel, listeners);
    }
    listeners.add(listener);
    try {
      await this.subscribeInRedis(fullChannel);
    } catch (error) {
      this.detach(fullChannel, listener);
      throw asOutage(error);
    }
    // Rejects when Redis cannot be told (outage); the handler is detached either way.
    return async () => {
      if (this.detach(fullChannel, listener)) await answered(this.sharded ? this.subscriber.sunsubscribe(fullChannel) : this.subscriber.unsubscribe(fullChannel));
    };
  }

  /** On a cluster the channel's own shard is asked: only it knows the channel's sharded subscribers. */
  async hasSubscribers(channel: string): Promise<boolean> {
    const fullChannel = this.keyPrefix + channel;
    const reply = this.commands instanceof Cluster ? this.shardOf(this.commands, fullChannel).pubsub('SHARDNUMSUB', fullChannel) : this.commands.pubsub('NUMSUB', fullChannel);
    const [, count] = (await answered(reply)) as [string, number];
    return count > 0;
  }

  /** On a cluster every master must answer: state lives on all of them. */
  async ping(): Promise<void> {
    if (!(this.commands instanceof Cluster)) {
      await answered(Promise.all([this.commands.ping(), this.subscriber.ping()]));
      return;
    }
    const masters = this.commands.status === 'ready' ? this.commands.nodes('master') : [];
    if (masters.length === 0) throw new DependencyUnavailableError('redis', 'the Redis Cluster is not connected');
    await answered(Promise.all(masters.map((node) => node.ping())));
  }

  /** Idempotent: disconnecting an ended ioredis connection again would leave a 2 s timer. */
  close(): Promise<void> {
    this.listeners.clear();
    const connections = new Set([this.commands, this.subscriber]);
    this.closed ??= Promise.all([...connections].map(closeConnection)).then(() => undefined);
    return this.closed;
  }

  /**
   * After a reconnect: subscribes every channel again (a no-op where ioredis's own
   * resubscription came first) and, once Redis confirmed, tells the listeners that asked. A
   * connection lost again meanwhile gets its own 'ready' and another try.
   */
  private async resubscribed(): Promise<void> {
    const channels = [...this.listeners.keys()];
    if (channels.length === 0) return;
    try {
      await Promise.all(channels.map((channel) => this.subscribeInRedis(channel)));
    } catch {
      return;
    }
    for (const channel of channels) for (const listener of this.listeners.get(channel) ?? []) listener.resubscribed?.();
  }

  private get sharded(): boolean {
    return this.commands instanceof Cluster;
  }

  /** SSUBSCRIBE on a cluster (one channel per call: a call's channels must share a slot), else SUBSCRIBE. */
  private async subscribeInRedis(fullChannel: string): Promise<void> {
    await (this.sharded ? this.subscriber.ssubscribe(fullChannel) : this.subscriber.subscribe(fullChannel));
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
    const node = cluster.nodes('master').find((each) => `${each.options.host}:${each.options.port}` === nodeKey);
    if (node === undefined) throw new DependencyUnavailableError('redis', 'no Redis Cluster node serves the slot');
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

/**
 * Logs transitions only (lost once, restored once) rather than every failed reconnect
 * attempt. 'reconnecting' marks a loss (a deliberate close() never reconnects); the
 * 'error' listener supplies its cause and keeps ioredis from printing unhandled errors.
 * The cause is logged as its message, like every outage (OutageLog): whether a stopping Redis
 * closed the socket cleanly or reset it under a command in flight (ECONNRESET) is a matter of
 * timing, and neither is a bug with a stack worth reading.
 */
function reportConnectionState(connection: Connection, role: string, logger: SharedStateLogger): void {
  let healthy = true;
  let lastError: Error | undefined;
  connection.on('error', (error: Error) => {
    lastError = error;
  });
  connection.on('reconnecting', () => {
    if (!healthy) return;
    healthy = false;
    logger.warn({ cause: lastError?.message, role }, 'Redis connection unavailable; shared-state commands fail until it is back');
  });
  connection.on('ready', () => {
    lastError = undefined;
    if (healthy) return;
    healthy = true;
    logger.info({ role }, 'Redis connection restored');
  });
}

/** QUIT lets replies in flight arrive; a connection that is not up is simply dropped. */
async function closeConnection(connection: Connection): Promise<void> {
  if (connection.status === 'ready') {
    await connection.quit().catch(() => connection.disconnect());
  } else {
    connection.disconnect();
  }
}
