/**
 * What every pod must know at once: which sessions have ended and which access tokens are
 * denied. Both live in shared state (Redis in a cluster) only as long as an access token can
 * live, because after that no token of them can still be presented. One round trip checks both.
 */
import type { SharedState } from '../../platform/shared-state/shared-state.js';
import { defineScript } from '../../platform/shared-state/shared-state.js';

/** Returns how many of KEYS exist (0: nothing revoked). */
const anyExists = defineScript<[], number>({
  name: 'any-exists',
  keys: 2,
  lua: `return redis.call('EXISTS', KEYS[1], KEYS[2])`,
  local: (state, keys) => keys.filter((key) => state.get(key) !== null).length,
});

export class Revocations {
  constructor(
    private readonly sharedState: SharedState,
    /** The longest an access token lives, plus clock tolerance. */
    private readonly accessTokenLifetimeMs: number,
  ) {}

  async endSession(sessionId: string): Promise<void> {
    await this.sharedState.set(`session-ended:${sessionId}`, '1', { ttlMs: this.accessTokenLifetimeMs });
  }

  /** Denies one access token until it expires on its own. */
  async denyToken(tokenId: string, expiresAt: Date): Promise<void> {
    const ttlMs = expiresAt.getTime() - Date.now();
    if (ttlMs > 0) await this.sharedState.set(`token-denied:${tokenId}`, '1', { ttlMs });
  }

  /** Whether the session has ended: for credentials other than access tokens (WebSocket tickets). */
  async hasSessionEnded(sessionId: string): Promise<boolean> {
    return this.sharedState.exists(`session-ended:${sessionId}`);
  }

  async isRevoked(sessionId: string, tokenId: string): Promise<boolean> {
    return (await this.sharedState.run(anyExists, [`session-ended:${sessionId}`, `token-denied:${tokenId}`], [])) > 0;
  }
}
