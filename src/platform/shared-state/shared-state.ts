/**
 * The shared-state port: the short-lived state that every pod of the service must see
 * alike — pub/sub fan-out from api pods to ws pods, single-use WebSocket tickets, the
 * sign-in replay cache, rate-limit buckets, the access-token deny list, presence.
 *
 * Two implementations keep the same semantics (one contract test suite runs on both, and on a
 * Redis Cluster):
 * - RedisSharedState (REDIS_URL set): state shared by every pod through Redis or a Redis Cluster;
 * - MemorySharedState (REDIS_URL unset): one process, in memory.
 *
 * Keys and channels: every key and channel is prefixed with the configured key prefix
 * (REDIS_KEY_PREFIX, default `svc:`) so that deployments and test runs can share one
 * Redis. Callers and scripts never see or add the prefix themselves.
 *
 * Redis Cluster (REDIS_CLUSTER=true): keys are named with a hash tag (`{user}`, `{chan:id}`, a
 * shard bucket's tag) so that a multi-key command (`getMany`) or a script only ever touches one
 * slot, and pub/sub is sharded (SSUBSCRIBE/SPUBLISH): a channel lives on the shard of its slot, so
 * fan-out spreads over the shards instead of every node carrying every message.
 *
 * Redis outage: commands fail fast instead of hanging the request. A command issued while
 * the connection is down rejects at once (no offline queue), a command in flight when the
 * connection drops rejects at once and is never replayed, and a command on a connection
 * that stopped answering rejects after about a second. A rejected write may still have
 * been applied (the reply, not the command, may be what got lost). The client keeps
 * reconnecting in the background; `ping()` (the readiness check) fails until it is back,
 * and subscriptions are restored on reconnect. Pub/sub is at-most-once: messages
 * published while a subscriber is disconnected are lost, so consumers catch up from the
 * durable store (`subscribe` tells them when they may have missed some).
 */
import type { Logger } from 'pino';

export type SharedStateLogger = Pick<Logger, 'info' | 'warn' | 'error'>;

export interface SetOptions {
  /** Time to live in whole milliseconds (> 0). Without it the key does not expire. */
  ttlMs?: number;
  /** Write only when the key does not exist (SET NX); `set` then answers false. */
  onlyIfAbsent?: boolean;
}

/** Called once per message; a throw or rejection is logged and never reaches others. */
export type MessageHandler = (message: string) => void | Promise<void>;

/**
 * Stops delivery to one handler at once (it is never called after this is invoked); the
 * promise settles once the backing store is told, and may reject during a Redis outage.
 * Calling it again is harmless.
 */
export type Unsubscribe = () => Promise<void>;

export interface SharedState {
  get(key: string): Promise<string | null>;
  /**
   * MGET: the values of several keys in one round trip, null where absent. On a Redis
   * Cluster the keys must share a hash slot (use one `{hash tag}` in all of them).
   */
  getMany(keys: readonly string[]): Promise<(string | null)[]>;
  /** Plain SET replaces the value and clears any TTL. False only when onlyIfAbsent lost. */
  set(key: string, value: string, options?: SetOptions): Promise<boolean>;
  /** Atomic get-and-delete (GETDEL): of concurrent takers, exactly one gets the value. */
  take(key: string): Promise<string | null>;
  /** True when the key existed. */
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
  /**
   * Adds the integer `n` (INCRBY; an absent key counts as 0) and returns the new value.
   * `ttlMs` is applied only while the key has no expiry, i.e. when this call created it,
   * so a counter's window runs from its first increment and is never extended.
   */
  incrementBy(key: string, n: number, ttlMs?: number): Promise<number>;
  /**
   * Runs an atomic script (see defineScript); `keys` are prefixed, `args` are not. A
   * script may publish: its messages go out in script order, atomically with its writes.
   * On a Redis Cluster all `keys` must share a hash slot.
   */
  run<TArgs extends readonly ScriptArg[], TResult extends ScriptReply>(
    script: SharedStateScript<TArgs, TResult>,
    keys: readonly string[],
    args: TArgs,
  ): Promise<TResult>;
  /** Resolves once the store has accepted the message; delivery follows asynchronously. */
  publish(channel: string, message: string): Promise<void>;
  /**
   * Resolves once delivery is established: every later publish reaches the handler.
   * `onResubscribed` is called each time delivery is established again after the connection
   * to the backing store was lost (Redis only): what was published in between is lost, so a
   * subscriber that must not miss anything catches up from the state it mirrors.
   */
  subscribe(
    channel: string,
    handler: MessageHandler,
    onResubscribed?: () => void,
  ): Promise<Unsubscribe>;
  /**
   * Whether any process (pod) is subscribed to the channel at this moment (PUBSUB NUMSUB; on a
   * Redis Cluster PUBSUB SHARDNUMSUB, asked of the shard that holds the channel): a publish now
   * would reach someone.
   */
  hasSubscribers(channel: string): Promise<boolean>;
  /** Resolves when the backing store answers; throws otherwise (readiness check). */
  ping(): Promise<void>;
  /** Releases connections and subscriptions; later calls reject. */
  close(): Promise<void>;
}

export type ScriptArg = string | number;

/**
 * What a script may return. Redis converts a Lua number to an integer by truncation and
 * cuts an array at its first nil, so return integers (or strings) and nil-free arrays;
 * the in-memory implementation applies the same conversion to `local`'s result.
 */
export type ScriptReply = string | number | null | ReadonlyArray<string | number>;

/**
 * The key space as a script's in-memory twin sees it: the Redis string commands a small
 * script needs, and the few sorted-set commands a work queue needs (ZADD, ZREM,
 * ZRANGEBYSCORE, ZCARD), with Redis semantics. There are no hashes or lists, so a Lua
 * script must keep to string keys and sorted sets to have a faithful `local` twin.
 */
export interface LocalScriptState {
  /** GET */
  get(key: string): string | null;
  /** SET, with PX (`ttlMs`) or KEEPTTL (`keepTtl`); plain SET clears the TTL. */
  set(key: string, value: string, options?: { ttlMs?: number; keepTtl?: boolean }): void;
  /** DEL; true when the key existed. */
  delete(key: string): boolean;
  /** PTTL: remaining milliseconds, -1 when the key has no expiry, -2 when it is absent. */
  pttl(key: string): number;
  /** PEXPIRE: false when the key is absent; a ttl <= 0 deletes it, as in Redis. */
  pexpire(key: string, ttlMs: number): boolean;
  /**
   * PUBLISH, delivered after the script returns. A script passes its channel among KEYS so
   * that the channel gets the key prefix and, named with the hash tag of its keys, their slot
   * (on a Redis Cluster the Lua script publishes with SPUBLISH, which must stay in that slot).
   */
  publish(channel: string, message: string): void;
  /** ZADD key score member: adds the member or moves it to the new score. */
  zadd(key: string, score: number, member: string): void;
  /** ZREM; true when the member was there. */
  zrem(key: string, member: string): boolean;
  /**
   * ZRANGEBYSCORE key -inf max WITHSCORES LIMIT 0 count: the members of score <= `max`,
   * lowest score first (ties in byte order of the member), at most `count` of them.
   */
  zrangeByScore(key: string, max: number, count: number): [member: string, score: number][];
  /** ZCARD */
  zcard(key: string): number;
}

export interface ScriptDefinition<TResult extends ScriptReply> {
  /** Shown in errors and logs. */
  name: string;
  /** How many of the script's parameters are keys (KEYS[1..n]); the rest are ARGV. */
  keys: number;
  /**
   * The Redis script. Keep it tiny and documented: it is the one place where hand-written
   * logic runs inside Redis. It must touch only the keys it is given (and keys named with
   * their hash tag), and must take the current time as an argument rather than reading a clock.
   * It publishes with `redis.call(PUBLISH, channel, message)`: the implementation defines
   * `PUBLISH` as 'PUBLISH' on one Redis and 'SPUBLISH' (sharded pub/sub) on a Redis Cluster.
   */
  lua: string;
  /**
   * The same logic over the in-memory key space, with `keys` already prefixed exactly as
   * KEYS is in Redis and `args` as strings exactly as ARGV is. It runs synchronously,
   * which is what makes it atomic.
   */
  local: (state: LocalScriptState, keys: readonly string[], args: readonly string[]) => TResult;
}

declare const argumentTypes: unique symbol;

/** A defined script; `TArgs` types the `args` that `run` accepts for it. */
export interface SharedStateScript<
  TArgs extends readonly ScriptArg[],
  TResult extends ScriptReply,
> extends Readonly<ScriptDefinition<TResult>> {
  readonly [argumentTypes]?: TArgs;
}

/**
 * Declares an atomic script for `SharedState.run`. Define scripts once, at module level:
 * Redis runs them by SHA1 (EVALSHA), loading them on first use (EVAL).
 */
export function defineScript<TArgs extends readonly ScriptArg[], TResult extends ScriptReply>(
  definition: ScriptDefinition<TResult>,
): SharedStateScript<TArgs, TResult> {
  if (!Number.isSafeInteger(definition.keys) || definition.keys < 0) {
    throw new RangeError(`script ${definition.name}: keys must be a non-negative integer`);
  }
  return Object.freeze({ ...definition });
}
