/**
 * When each session was last seen by any api pod, for the one decision that needs it exactly:
 * which session the 5-session cap ends. The store's `lastActiveAt` is written at most once a
 * minute per session (session-manager.ts), so on its own it could name the session that is
 * sending right now as the least recently active. Every request whose store write the throttle
 * skips is recorded here instead (shared state, so every pod sees every pod's requests).
 *
 * Only a hint on top of the store: a record lost with Redis falls back to `lastActiveAt`.
 */
import type { SharedState } from '../../platform/shared-state/shared-state.js';

/** Longer than the store's write throttle: after that, `lastActiveAt` is at least as recent. */
const KEEP_MS = 5 * 60_000;
const keyOf = (sessionId: string) => `session-seen:${sessionId}`;

export class SessionActivity {
  constructor(private readonly state: SharedState) {}

  /**
   * Records a request of the session. Not awaited by the request: losing the hint (a Redis
   * outage, which fails the request anyway) costs only precision, never correctness.
   */
  record(sessionId: string, at: number): void {
    this.state.set(keyOf(sessionId), String(at), { ttlMs: KEEP_MS }).catch(() => undefined);
  }

  /** When each session was last recorded (epoch ms), absent where unknown. */
  async lastSeen(sessionIds: readonly string[]): Promise<Map<string, number>> {
    const seen = await Promise.all(sessionIds.map((id) => this.state.get(keyOf(id))));
    return new Map(
      sessionIds.flatMap((id, i) => (seen[i] == null ? [] : [[id, Number(seen[i])] as const])),
    );
  }
}
