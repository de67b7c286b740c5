/**
 * The enumeration quota of contact discovery: beyond the per-minute bucket of the RPC, each
 * user may look up at most DISCOVERY_HASH_BUDGET phone hashes it has not looked up before,
 * refilled steadily over DISCOVERY_BUDGET_WINDOW, as Signal's contact discovery does. Looking
 * up a hash again within the window is free, so an address book synced every day costs only
 * its new entries, while walking the space of numbers runs out quickly.
 *
 * Both halves live in shared state, so every pod counts against the same budget, and the budget
 * also in the store (durable-budget.ts), so that a Redis that comes back empty resets nobody's:
 * - the budget is a token bucket (limits' `takeTokens`, one atomic script) of `budget` tokens
 *   refilled at `budget` per window; a request costs one token per hash not seen before;
 * - each seen hash is one key with the window as TTL: `discovery:seen:{<user>}:<digest>`, the
 *   digest being the first 64 bits of SHA-256 of the submitted hash (the braces keep a user's
 *   keys in one Redis Cluster slot, so one MGET reads them). We chose one key per hash over a
 *   HyperLogLog (it counts but cannot say whether a given hash was seen, so repeats would not be
 *   free) and over a Bloom filter in one string (false positives would make unseen hashes free,
 *   and the scripts' in-memory twin only has string keys). A user who spends the whole budget
 *   holds 50,000 small keys, which expire with the window.
 * - the store's copy is charged after shared state allowed the request, and refuses it when the
 *   durable budget is spent. After shared state lost its data, every hash counts as new again
 *   and is charged again: the strict side, and only until the window refills.
 *
 * The check and the marking are separate steps: two concurrent requests with the same new
 * hashes may both pay for them (never neither), which errs on the strict side. Hashes are
 * marked only when the budget allowed the request. A shared-state outage fails the request
 * (503): an abuse control must not open during an outage.
 */
import { createHash } from 'node:crypto';
import { takeTokens } from '../../limits/token-bucket.js';
import type { DurableBudget } from './durable-budget.js';
import type { DiscoverySettings } from '../../platform/config/settings.js';
import { rateLimited } from '../../platform/errors/api-error.js';
import type { SharedState } from '../../platform/shared-state/shared-state.js';

const digest = (phoneHash: string) =>
  createHash('sha256').update(phoneHash).digest('hex').slice(0, 16);

export class EnumerationQuota {
  constructor(
    private readonly state: SharedState,
    private readonly settings: DiscoverySettings,
    private readonly durable: DurableBudget,
  ) {}

  /** Charges `user` for the hashes it has not looked up before; 429 with Retry-After beyond the budget. */
  async charge(user: string, phoneHashes: readonly string[]): Promise<void> {
    const keys = [...new Set(phoneHashes.map(digest))].map(
      (each) => `discovery:seen:{${user}}:${each}`,
    );
    const seen = await this.state.getMany(keys);
    const unseen = keys.filter((_, index) => seen[index] === null);
    if (unseen.length === 0) return;
    const { hashBudget, budgetWindowMs } = this.settings;
    const nowMs = Date.now();
    const shared = await takeTokens(this.state, `discovery:budget:{${user}}`, {
      burst: hashBudget,
      limit: hashBudget,
      windowMs: budgetWindowMs,
      cost: unseen.length,
      nowMs,
    });
    const decision = shared.allowed ? await this.durable.take(user, unseen.length, nowMs) : shared;
    if (!decision.allowed)
      throw rateLimited(hashBudget, budgetWindowMs, decision.retryAfterMs, false);
    await Promise.all(unseen.map((key) => this.state.set(key, '1', { ttlMs: budgetWindowMs })));
  }
}
