/**
 * SharedState for a single process (REDIS_URL unset), over an in-process MemoryStore.
 * Every operation completes synchronously inside its async method, which makes each one
 * atomic by construction, scripts included. Methods stay async so that errors surface as
 * rejections, exactly as they do from Redis.
 */
import { assertIncrement, assertTtlMs, scriptArguments } from './argument-checks.js';
import { deliverMessage } from './deliver-message.js';
import { incrementScript } from './increment-script.js';
import { MemoryStore } from './memory-store.js';
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

export interface MemorySharedStateOptions {
  keyPrefix: string;
  logger: SharedStateLogger;
  /** Share a store to make several instances behave like pods on one Redis (tests). */
  store?: MemoryStore;
}

export class MemorySharedState implements SharedState {
  private readonly keyPrefix: string;
  private readonly logger: SharedStateLogger;
  private readonly store: MemoryStore;
  private readonly subscriptions = new Set<() => void>();
  private closed = false;

  constructor(options: MemorySharedStateOptions) {
    this.keyPrefix = options.keyPrefix;
    this.logger = options.logger;
    this.store = options.store ?? new MemoryStore();
  }

  async get(key: string): Promise<string | null> {
    return this.open().get(this.keyPrefix + key);
  }

  async getMany(keys: readonly string[]): Promise<(string | null)[]> {
    const store = this.open();
    return keys.map((key) => store.get(this.keyPrefix + key));
  }

  async set(key: string, value: string, options: SetOptions = {}): Promise<boolean> {
    assertTtlMs(options.ttlMs);
    const store = this.open();
    const fullKey = this.keyPrefix + key;
    if (options.onlyIfAbsent === true && store.get(fullKey) !== null) return false;
    store.set(fullKey, value, { ttlMs: options.ttlMs });
    return true;
  }

  async take(key: string): Promise<string | null> {
    const store = this.open();
    const fullKey = this.keyPrefix + key;
    const value = store.get(fullKey);
    store.delete(fullKey);
    return value;
  }

  async delete(key: string): Promise<boolean> {
    return this.open().delete(this.keyPrefix + key);
  }

  async exists(key: string): Promise<boolean> {
    return this.open().get(this.keyPrefix + key) !== null;
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
    return asRedisReply(script.local(this.open(), fullKeys, argv)) as TResult;
  }

  async publish(channel: string, message: string): Promise<void> {
    this.open().publish(this.keyPrefix + channel, message);
  }

  /** Delivery within one process is never interrupted, so `onResubscribed` is never called. */
  async subscribe(channel: string, handler: MessageHandler): Promise<Unsubscribe> {
    const fullChannel = this.keyPrefix + channel;
    const remove = this.open().subscribe(fullChannel, (message) =>
      deliverMessage(handler, message, fullChannel, this.logger),
    );
    this.subscriptions.add(remove);
    return async () => {
      remove();
      this.subscriptions.delete(remove);
    };
  }

  async hasSubscribers(channel: string): Promise<boolean> {
    return this.open().hasListeners(this.keyPrefix + channel);
  }

  async ping(): Promise<void> {
    this.open();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const remove of this.subscriptions) remove();
    this.subscriptions.clear();
  }

  /** The store, or a rejection once closed (as a closed Redis connection rejects). */
  private open(): MemoryStore {
    if (this.closed) throw new Error('shared state is closed');
    return this.store;
  }
}

/** Redis's Lua-to-reply conversion: numbers are truncated to integers. */
function asRedisReply(reply: ScriptReply): ScriptReply {
  if (typeof reply === 'number') return Math.trunc(reply);
  if (Array.isArray(reply))
    return (reply as ReadonlyArray<string | number>).map((item) =>
      typeof item === 'number' ? Math.trunc(item) : item,
    );
  return reply;
}
