/**
 * The sign-in replay cache (spec: 10 minutes): an accepted wallet signature is spent under its
 * canonical form, in shared state so that every pod refuses its second use.
 */
import type { SharedState } from '../../platform/shared-state/shared-state.js';

/** An accepted signature is spent this long. */
const REPLAY_WINDOW_MS = 10 * 60_000;

export class ReplayGuard {
  constructor(private readonly sharedState: SharedState) {}

  /** Spends `signatureKey`; false when it was already spent (a replay). Returns the key to release. */
  async spend(signatureKey: string): Promise<{ fresh: boolean; replayKey: string }> {
    const replayKey = `signin-replay:${signatureKey}`;
    const fresh = await this.sharedState.set(replayKey, '1', { ttlMs: REPLAY_WINDOW_MS, onlyIfAbsent: true });
    return { fresh, replayKey };
  }

  /** Un-spends a signature whose sign-in was refused after the proof, so the client may send it again. */
  async release(replayKey: string): Promise<void> {
    await this.sharedState.delete(replayKey);
  }
}
