/**
 * Lockouts after repeated failed authentication, for a client IP or an account: THRESHOLD
 * failures within WINDOW lock the target, first for BASE_LOCK, then twice as long for each
 * further lock within a day, up to MAX_LOCK. State lives in shared state, so a lock holds on
 * every pod; an operator can clear it (AdminService.UnlockLockout).
 */
import { DependencyUnavailableError } from '../../platform/errors/dependency-unavailable.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';

export type LockoutKind = 'user' | 'ip';

/** Failures within WINDOW that lock the target. */
export const LOCKOUT_THRESHOLD = 5;
const WINDOW_MS = 15 * 60_000;
const BASE_LOCK_MS = 60_000;
const MAX_LOCK_MS = 3_600_000;
const ESCALATION_MEMORY_MS = 24 * 3_600_000;

const keys = (kind: LockoutKind, id: string) => ({
  failures: `lockout-failures:${kind}:${id}`,
  level: `lockout-level:${kind}:${id}`,
  lock: `lockout:${kind}:${id}`,
});

export class Lockouts {
  constructor(
    private readonly sharedState: SharedState,
    /** Off with the other abuse controls (RATE_LIMITS_ENABLED=false): nothing is counted or locked. */
    private readonly enabled = true,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until the target is unlocked; 0 when it is not locked. */
  async remainingMs(kind: LockoutKind, id: string): Promise<number> {
    if (!this.enabled) return 0;
    const until = await this.sharedState.get(keys(kind, id).lock);
    return until === null ? 0 : Math.max(0, Number(until) - this.now());
  }

  /** Failures counted toward the next lock (a lock resets them), and the time until the current lock ends. */
  async status(kind: LockoutKind, id: string): Promise<{ failures: number; remainingMs: number }> {
    if (!this.enabled) return { failures: 0, remainingMs: 0 };
    const [failures, remainingMs] = await Promise.all([
      this.sharedState.get(keys(kind, id).failures),
      this.remainingMs(kind, id),
    ]);
    return { failures: failures === null ? 0 : Number(failures), remainingMs };
  }

  /** Counts a failed attempt; returns the lock length when this failure locked the target. */
  async recordFailure(kind: LockoutKind, id: string): Promise<number> {
    if (!this.enabled) return 0;
    const k = keys(kind, id);
    const failures = await this.sharedState.incrementBy(k.failures, 1, WINDOW_MS);
    if (failures < LOCKOUT_THRESHOLD) return 0;
    await this.sharedState.delete(k.failures);
    const level = await this.sharedState.incrementBy(k.level, 1, ESCALATION_MEMORY_MS);
    const lockMs = Math.min(BASE_LOCK_MS * 2 ** (level - 1), MAX_LOCK_MS);
    await this.sharedState.set(k.lock, String(this.now() + lockMs), { ttlMs: lockMs });
    return lockMs;
  }

  /**
   * A success forgets the failures counted so far (not an active lock). It runs after the success
   * took effect (a session opened, a signature spent), so an outage must not turn it into a
   * failure: the count then simply expires with its window.
   */
  async recordSuccess(kind: LockoutKind, id: string): Promise<void> {
    if (!this.enabled) return;
    try {
      await this.sharedState.delete(keys(kind, id).failures);
    } catch (error) {
      if (!(error instanceof DependencyUnavailableError)) throw error;
    }
  }

  /** Clears the lock and its history; true when a lock was active. */
  async clear(kind: LockoutKind, id: string): Promise<boolean> {
    const k = keys(kind, id);
    const wasLocked = (await this.remainingMs(kind, id)) > 0;
    await Promise.all([
      this.sharedState.delete(k.lock),
      this.sharedState.delete(k.failures),
      this.sharedState.delete(k.level),
    ]);
    return wasLocked;
  }
}
