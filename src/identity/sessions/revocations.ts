/**
 * What every pod must know at once: which sessions have ended and which access tokens are
 * denied. Both live in shared state (Redis in a cluster) only as long as an access token can
 * live, because after that no token of them can still be presented. One round trip checks both.
 *
 * Shared state is a mirror of the store here, not the record (see mirror-completeness.ts): the
 * store's sessions are copied back by the api side after Redis lost its data
 * (ended-sessions-mirror.ts), and until that is done a check answers `unknown` instead of `live`.
 * Ending a session also announces it on the endings channel, so every ws pod closes its sockets at
 * once. Keys, marker and announcement of a session share its shard bucket (one Redis Cluster slot).
 */
import type { SharedState, Unsubscribe } from '../../platform/shared-state/shared-state.js';
import { defineScript } from '../../platform/shared-state/shared-state.js';
import { BucketedChannel } from '../../platform/shared-state/bucketed-channel.js';
import {
  lookUpMirror,
  lookUpMirrorEach,
  mirrorKey,
} from '../../platform/shared-state/mirror-completeness.js';

/** `unknown`: shared state cannot vouch (its mirror is being rebuilt); ask the store or refuse. */
export type SessionStatus = 'live' | 'ended' | 'unknown';

const endings = new BucketedChannel('sessions-ended');
const sessionKey = (sessionId: string) => mirrorKey(sessionId, `session-ended:${sessionId}`);
/** In its session's bucket, so that one lookup checks the session and the token. */
const tokenKey = (sessionId: string, tokenId: string) =>
  mirrorKey(sessionId, `token-denied:${tokenId}`);

/** KEYS: the session's mark, the endings channel. ARGV: session id, ttl ms. Marks and announces atomically. */
const markEnded = defineScript<[sessionId: string, ttlMs: number], number>({
  name: 'session-end',
  keys: 2,
  lua: `redis.call('SET', KEYS[1], '1', 'PX', ARGV[2])
redis.call(PUBLISH, KEYS[2], ARGV[1])
return 1`,
  local: (state, [mark, channel], [sessionId, ttlMs]) => {
    state.set(mark!, '1', { ttlMs: Number(ttlMs) });
    state.publish(channel!, sessionId!);
    return 1;
  },
});

export class Revocations {
  constructor(
    private readonly sharedState: SharedState,
    /** The longest an access token lives, plus clock tolerance. */
    readonly accessTokenLifetimeMs: number,
  ) {}

  /** Marks the session ended for as long as its access tokens live, and tells every pod. */
  async endSession(sessionId: string): Promise<void> {
    await this.sharedState.run(
      markEnded,
      [sessionKey(sessionId), endings.of(sessionId)],
      [sessionId, this.accessTokenLifetimeMs],
    );
  }

  /** Copies back the mark of a session the store says ended at `endedAt` (no announcement). */
  async restoreEnded(sessionId: string, endedAt: Date): Promise<void> {
    const ttlMs = endedAt.getTime() + this.accessTokenLifetimeMs - Date.now();
    if (ttlMs > 0)
      await this.sharedState.set(sessionKey(sessionId), '1', { ttlMs: Math.ceil(ttlMs) });
  }

  /** Denies one access token of the session until it expires on its own. */
  async denyToken(sessionId: string, tokenId: string, expiresAt: Date): Promise<void> {
    const ttlMs = expiresAt.getTime() - Date.now();
    if (ttlMs > 0) await this.sharedState.set(tokenKey(sessionId, tokenId), '1', { ttlMs });
  }

  /** The session's status; with `tokenId`, a denied access token counts as ended too. */
  async status(sessionId: string, tokenId?: string): Promise<SessionStatus> {
    const answer = await lookUpMirror(this.sharedState, sessionId, [
      sessionKey(sessionId),
      tokenId === undefined ? sessionKey(sessionId) : tokenKey(sessionId, tokenId),
    ]);
    return answer === 'found' ? 'ended' : answer === 'absent' ? 'live' : 'unknown';
  }

  /** Which of these sessions have ended, in one round trip per shard bucket; `unknown` as for `status`. */
  async endedAmong(sessionIds: readonly string[]): Promise<string[] | 'unknown'> {
    const ended = await lookUpMirrorEach(
      this.sharedState,
      sessionIds.map((sessionId) => ({ routingId: sessionId, key: sessionKey(sessionId) })),
    );
    return ended === 'unknown' ? ended : sessionIds.filter((_, index) => ended[index]);
  }

  /**
   * Calls `handler` with the id of every session ended from now on, on any pod, and
   * `onMissed` whenever endings may have been missed (the subscription was lost and is back:
   * check the sessions you hold with `endedAmong`).
   */
  onSessionEnded(
    handler: (sessionId: string) => void,
    onMissed?: () => void,
  ): Promise<Unsubscribe> {
    return endings.subscribeAll(this.sharedState, handler, onMissed);
  }
}
