/**
 * The in-process stand-in for a Redis server: a string key space with expiry and
 * pub/sub channels. It knows nothing of key prefixes; MemorySharedState adds them, and
 * several MemorySharedState instances over one store behave like pods sharing a Redis.
 *
 * Expiry is lazy (an expired entry is invisible from the moment it expires) and swept (the
 * entries nobody reads again are freed when their bucket of ExpiryBuckets has passed: one
 * unref'd timer, set for the earliest bucket, so a store whose keys expire tomorrow wakes
 * tomorrow, and a sweep reads only the keys it frees).
 */
import { ExpiryBuckets } from './expiry-buckets.js';
import type { LocalScriptState } from './shared-state.js';

interface Entry {
  value: string;
  /** On the monotonic clock (performance.now), so wall-clock jumps cannot expire keys. */
  expiresAt: number | null;
  /** The bucket of `expiries` the key is filed in (at or before its expiry). */
  bucket: number | null;
}

/** setTimeout's longest delay; a sweep due later is reached in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

type Listener = (message: string) => void;

export interface MemoryStoreOptions {
  /** The width of a sweep's bucket: an expired entry is freed at most this long after its expiry; default 1 s. */
  sweepIntervalMs?: number;
}

export class MemoryStore implements LocalScriptState {
  private readonly entries = new Map<string, Entry>();
  private readonly channels = new Map<string, Set<Listener>>();
  /** Sorted sets: member to score. A set that becomes empty is removed, as Redis does. */
  private readonly sortedSets = new Map<string, Map<string, number>>();
  /** Published messages waiting for their delivery turn, each with the listeners it reaches. */
  private undelivered: { listeners: Set<Listener>; recipients: Listener[]; message: string }[] = [];
  private readonly expiries: ExpiryBuckets;
  private sweeper: NodeJS.Timeout | undefined;
  /** When `sweeper` fires. */
  private sweepAt = Infinity;

  constructor(options: MemoryStoreOptions = {}) {
    this.expiries = new ExpiryBuckets(options.sweepIntervalMs ?? 1000);
  }

  /** Entries held, including expired ones not yet swept. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): string | null {
    return this.live(key)?.value ?? null;
  }

  set(key: string, value: string, options: { ttlMs?: number; keepTtl?: boolean } = {}): void {
    const kept = options.keepTtl === true ? (this.live(key)?.expiresAt ?? null) : null;
    const expiresAt = options.ttlMs === undefined ? kept : performance.now() + options.ttlMs;
    const entry = { value, expiresAt, bucket: this.entries.get(key)?.bucket ?? null };
    this.entries.set(key, entry);
    this.file(key, entry);
  }

  delete(key: string): boolean {
    const existed = this.live(key) !== undefined || this.sortedSets.has(key);
    this.remove(key);
    this.sortedSets.delete(key);
    return existed;
  }

  zadd(key: string, score: number, member: string): void {
    const set = this.sortedSets.get(key) ?? new Map<string, number>();
    set.set(member, score);
    this.sortedSets.set(key, set);
  }

  zrem(key: string, member: string): boolean {
    const set = this.sortedSets.get(key);
    if (!set?.delete(member)) return false;
    if (set.size === 0) this.sortedSets.delete(key);
    return true;
  }

  zrangeByScore(key: string, max: number, count: number): [string, number][] {
    const set = this.sortedSets.get(key);
    if (!set) return [];
    const due: [string, number][] = [];
    for (const entry of set) if (entry[1] <= max) due.push(entry);
    // Code-unit order is byte order for the ASCII members scripts use (JSON, ids).
    return due
      .sort(
        ([memberA, a], [memberB, b]) =>
          a - b || (memberA < memberB ? -1 : memberA > memberB ? 1 : 0),
      )
      .slice(0, count);
  }

  zcard(key: string): number {
    return this.sortedSets.get(key)?.size ?? 0;
  }

  pttl(key: string): number {
    const entry = this.live(key);
    if (entry === undefined) return -2;
    if (entry.expiresAt === null) return -1;
    return Math.ceil(entry.expiresAt - performance.now());
  }

  pexpire(key: string, ttlMs: number): boolean {
    const entry = this.live(key);
    if (entry === undefined) return false;
    if (ttlMs <= 0) {
      this.remove(key);
      return true;
    }
    entry.expiresAt = performance.now() + ttlMs;
    this.file(key, entry);
    return true;
  }

  /**
   * Delivers on a later turn of the event loop, as a network would: a publisher never
   * re-enters a subscriber synchronously. Listeners are those subscribed at publish time
   * and still subscribed at delivery time.
   */
  publish(channel: string, message: string): void {
    const listeners = this.channels.get(channel);
    if (listeners === undefined) return;
    // One turn delivers everything published in the turn before it, in order: a group message
    // publishes once per member, and an Immediate per publish was a share of its cost.
    if (this.undelivered.length === 0) setImmediate(() => this.deliverPublished());
    this.undelivered.push({ listeners, recipients: [...listeners], message });
  }

  private deliverPublished(): void {
    const batch = this.undelivered;
    this.undelivered = [];
    for (const { listeners, recipients, message } of batch) {
      for (const listener of recipients) if (listeners.has(listener)) listener(message);
    }
  }

  hasListeners(channel: string): boolean {
    return this.channels.has(channel);
  }

  /** Returns the function that removes this listener. */
  subscribe(channel: string, listener: Listener): () => void {
    let listeners = this.channels.get(channel);
    if (listeners === undefined) {
      listeners = new Set();
      this.channels.set(channel, listeners);
    }
    listeners.add(listener);
    return () => {
      listeners.delete(listener);
      if (listeners.size === 0 && this.channels.get(channel) === listeners)
        this.channels.delete(channel);
    };
  }

  private live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt != null && entry.expiresAt <= performance.now()) {
      this.remove(key);
      return undefined;
    }
    return entry;
  }

  private remove(key: string): void {
    const bucket = this.entries.get(key)?.bucket;
    if (bucket != null) this.expiries.remove(key, bucket);
    this.entries.delete(key);
  }

  /**
   * Files the entry by its expiry. An expiry moved later leaves the key where it is (the sweep
   * files it again), so renewing a TTL costs no work here.
   */
  private file(key: string, entry: Entry): void {
    if (entry.expiresAt === null) {
      if (entry.bucket !== null) this.expiries.remove(key, entry.bucket);
      entry.bucket = null;
      return;
    }
    if (entry.bucket !== null && entry.bucket <= this.expiries.bucketOf(entry.expiresAt)) return;
    if (entry.bucket !== null) this.expiries.remove(key, entry.bucket);
    entry.bucket = this.expiries.add(key, entry.expiresAt);
    this.armSweeper();
  }

  private sweep(): void {
    const now = performance.now();
    for (const key of this.expiries.takeDue(now)) {
      const entry = this.entries.get(key);
      if (entry === undefined) continue;
      entry.bucket = null;
      if (entry.expiresAt !== null && entry.expiresAt <= now) this.entries.delete(key);
      else this.file(key, entry);
    }
    this.armSweeper();
  }

  /** Sets the timer for the earliest bucket, unless it is set for that or earlier already. */
  private armSweeper(): void {
    const dueAt = this.expiries.nextDueAt();
    if (dueAt === undefined || dueAt >= this.sweepAt) return;
    clearTimeout(this.sweeper);
    this.sweepAt = dueAt;
    const delay = Math.min(Math.max(0, dueAt - performance.now()), LONGEST_TIMER_MS);
    this.sweeper = setTimeout(() => {
      this.sweeper = undefined;
      this.sweepAt = Infinity;
      this.sweep();
    }, delay);
    this.sweeper.unref();
  }
}
