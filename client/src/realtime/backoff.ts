/**
 * Reconnection delays: exponential, capped, with full jitter (each delay drawn uniformly below
 * the cap of its attempt), so that the clients of a restarted pod do not all come back at once.
 */
export interface BackoffPolicy {
  /** The cap of the first retry's delay, ms (default 500). */
  readonly initialMs?: number;
  /** The largest cap, ms (default 30 000). */
  readonly maxMs?: number;
}

export function backoffDelay(
  attempt: number,
  policy: BackoffPolicy = {},
  random: () => number = Math.random,
): number {
  const cap = Math.min(policy.maxMs ?? 30_000, (policy.initialMs ?? 500) * 2 ** attempt);
  return Math.floor(random() * cap);
}
