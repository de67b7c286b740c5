/**
 * Rate limiting over shared state, so that every pod draws from the same buckets.
 *
 * When shared state fails (a Redis outage: commands reject within about a second, see
 * shared-state.ts) each limit's `failOpen` decides what the request gets. The service runs:
 * - fail-open: general traffic — the per-IP, per-user and per-endpoint default buckets,
 *   the per-endpoint buckets of ordinary endpoints, and the WebSocket limits. Refusing
 *   them would turn a Redis outage into a full outage, while letting them through during
 *   the outage costs only briefly unmetered load.
 * - fail-closed: authentication and recovery endpoints (initialize, auth/refresh,
 *   session/resume, mfa verify/challenge/setup/enable, recovery initiate/challenge, and the
 *   5-per-minute authentication attempts). There an outage would hand an attacker unlimited
 *   guesses; and these endpoints need shared state anyway (replay cache, tickets).
 * Every decision is reported to `onDecision`, so an outage that is failing open is visible
 * in metrics rather than silent.
 */
import type { SharedState } from '../platform/shared-state/shared-state.js';
import { assertPositiveIntegers } from './limit-arguments.js';
import { takeTokens } from './token-bucket.js';

export type DecisionOutcome = 'allowed' | 'limited' | 'failed_open' | 'failed_closed';

export interface LimitSubject {
  /**
   * What is limited: 'ip', 'user', 'endpoint', 'auth', 'ws_message'... It names the metric
   * label and the key space, so keep it to a fixed set. Identical keys in different scopes
   * are different buckets.
   */
  scope: string;
  /** Whom or what within the scope: an IP address, a wallet address, a call id. */
  key: string;
  /** Let requests through when shared state fails (see the header comment). */
  failOpen: boolean;
}

/** A token bucket: `limit` per `windowMs` sustained, `burst` in quick succession. */
export interface RateLimitBucket extends LimitSubject {
  limit: number;
  burst: number;
  windowMs: number;
}

/** A fixed number of units in all, counted from the first one until `ttlMs` later. */
export interface RateLimitQuota extends LimitSubject {
  total: number;
  ttlMs: number;
}

export interface RateLimitDecision {
  allowed: boolean;
  /** Whole tokens left; 0 when the bucket could not be read. */
  remaining: number;
  /** 0 when allowed; the wait until the request would be allowed (or shared state retried). */
  retryAfterMs: number;
  /** The bucket's, for the X-RateLimit-Limit and X-RateLimit-Window headers. */
  limit: number;
  windowMs: number;
  /** 'failed_closed' is an outage, not the client exceeding anything: a 503 fits it better than a 429. */
  outcome: DecisionOutcome;
}

export interface QuotaDecision {
  allowed: boolean;
  /** Units left; 0 when the counter could not be read. */
  remaining: number;
  outcome: DecisionOutcome;
}

/** `error` is what shared state threw, for the failed_* outcomes. */
export type DecisionListener = (scope: string, outcome: DecisionOutcome, error?: unknown) => void;

export interface RateLimiterOptions {
  /** Epoch milliseconds, an integer; shared by all pods, so a wall clock. Default Date.now. */
  now?: () => number;
  onDecision?: DecisionListener;
}

/** How long a fail-closed caller should wait: the shared-state client reconnects at least this often. */
const OUTAGE_RETRY_AFTER_MS = 2000;

export class RateLimiter {
  private readonly now: () => number;
  private readonly onDecision: DecisionListener;

  constructor(
    private readonly state: SharedState,
    options: RateLimiterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.onDecision = options.onDecision ?? (() => undefined);
  }

  /** Takes `cost` tokens from the bucket; invalid parameters reject with a RangeError. */
  async consume(bucket: RateLimitBucket, cost = 1): Promise<RateLimitDecision> {
    const { limit, burst, windowMs } = bucket;
    const { outcome, result } = await this.check(bucket, () =>
      takeTokens(this.state, `rate:${bucket.scope}:${bucket.key}`, {
        burst,
        limit,
        windowMs,
        cost,
        nowMs: this.now(),
      }),
    );
    const retryAfterMs =
      result?.retryAfterMs ?? (outcome === 'failed_closed' ? OUTAGE_RETRY_AFTER_MS : 0);
    return {
      allowed: allows(outcome),
      remaining: result?.remaining ?? 0,
      retryAfterMs,
      limit,
      windowMs,
      outcome,
    };
  }

  /**
   * Counts `cost` units against the quota; refused once the count would pass `total`.
   * Refused units are counted too, so a quota once exhausted stays so until it expires.
   */
  async consumeQuota(quota: RateLimitQuota, cost = 1): Promise<QuotaDecision> {
    const { total, ttlMs } = quota;
    assertPositiveIntegers({ total, ttlMs, cost });
    const { outcome, result } = await this.check(quota, async () => {
      const used = await this.state.incrementBy(`quota:${quota.scope}:${quota.key}`, cost, ttlMs);
      return { allowed: used <= total, remaining: Math.max(0, total - used) };
    });
    return { allowed: allows(outcome), remaining: result?.remaining ?? 0, outcome };
  }

  /** Runs one check and reports its outcome; without a result when shared state failed. */
  private async check<T extends { allowed: boolean }>(
    limit: LimitSubject,
    run: () => Promise<T>,
  ): Promise<{ outcome: DecisionOutcome; result?: T }> {
    let result: T;
    try {
      result = await run();
    } catch (error) {
      // A caller's mistake (bad parameters), not an outage: failing open would hide it.
      if (error instanceof RangeError) throw error;
      const outcome = limit.failOpen ? 'failed_open' : 'failed_closed';
      this.onDecision(limit.scope, outcome, error);
      return { outcome };
    }
    const outcome = result.allowed ? 'allowed' : 'limited';
    this.onDecision(limit.scope, outcome);
    return { outcome, result };
  }
}

function allows(outcome: DecisionOutcome): boolean {
  return outcome === 'allowed' || outcome === 'failed_open';
}
