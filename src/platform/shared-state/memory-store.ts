/**
 * The in-process stand-in for a Redis server: a string key space with expiry and
 * pub/sub channels. It knows nothing of key prefixes; MemorySharedState adds them, and
 * several MemorySharedState instances over one store behave like pods sharing a Redis.
 *
 * Expiry is lazy (an expired entry is invisible from the moment it expires) and periodic
 * (a sweep frees expired entries nobody reads again, visiting only those due: expiry-schedule.ts;
 * it runs only while entries with a TTL exist, on an unref'd timer, so an idle store holds no
 * timer at all).
 */
import { ExpirySchedule } from './expiry-schedule.js';
import type { LocalScriptState } from './shared-state.js';

interface Entry {
  value: string;
  /** On the monotonic clock (performance.now), so wall-clock jumps cannot expire keys. */
  expiresAt: number | null;
}

type Listener = (message: string) => void;

export interface MemoryStoreOptions {
  /** How often expired entries are swept; default 1 s. */
  sweepIntervalMs?: number;
}

export class MemoryStore implements LocalScriptState {
  private readonly entries = new Map<string, Entry>();
  private readonly channels = new Map<string, Set<Listener>>();
  /** Sorted sets: member to score. A set that becomes empty is removed, as Redis does. */
  private readonly sortedSets = new Map<string, Map<string, number>>();
  /** Published messages waiting for their delivery turn, each with the listeners it reaches. */
  private undelivered: { listeners: Set<Listener>; recipients: Listener[]; message: string }[] = [];
  private readonly sweepIntervalMs: number;
  private readonly expiries: ExpirySchedule;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(options: MemoryStoreOptions = {}) {
    this.sweepIntervalMs = options.sweepIntervalMs ?? 1000;
    this.expiries = new ExpirySchedule(this.sweepIntervalMs);
  }

  /** Entries held, including expired ones not yet swept. */
  get size(): number {
    return this.entries.size;
  }

  get(key: string): string | null {
    return this.live(key)?.value ?? null;
  }

  set(key: string, value: string, options: { ttlMs?: number; keepTtl?: boolean } = {}): void {
    const previous = this.live(key)?.expiresAt ?? null;
    const kept = options.keepTtl === true ? previous : null;
    const expiresAt = options.ttlMs === undefined ? kept : performance.now() + options.ttlMs;
    this.entries.set(key, { value, expiresAt });
    this.reschedule(key, previous, expiresAt);
  }

  delete(key: string): boolean {
    const entry = this.live(key);
    const existed = entry !== undefined || this.sortedSets.has(key);
    this.reschedule(key, entry?.expiresAt ?? null, null);
    this.entries.delete(key);
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
    const expiresAt = ttlMs <= 0 ? null : performance.now() + ttlMs;
    this.reschedule(key, entry.expiresAt, expiresAt);
    if (expiresAt === null) this.entries.delete(key);
    else entry.expiresAt = expiresAt;
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
      this.expiries.move(key, entry.expiresAt, null);
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  /** The key's expiry moved (null: none); starts the sweeper when it has something to do. */
  private reschedule(key: string, from: number | null, to: number | null): void {
    this.expiries.move(key, from, to);
    if (to === null || this.sweeper !== undefined) return;
    this.sweeper = setInterval(() => this.sweep(), this.sweepIntervalMs);
    this.sweeper.unref();
  }

  private sweep(): void {
    for (const key of this.expiries.takeDue(performance.now())) this.entries.delete(key);
    if (this.expiries.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }
}
