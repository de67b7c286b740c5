/**
 * The spec's WebSocket limits for the realtime tier. They are per user across all of the
 * user's connections, on whichever pods those are, so the buckets live in shared state
 * keyed by user; the ICE-candidate cap is per call, one counter for both parties.
 *
 * All of them fail open: the sockets are already authenticated, and refusing every frame
 * while Redis is away would take calls and chats down with it.
 */
import type { RateLimiter } from './rate-limiter.js';

/** Per minute. */
export interface WsRate {
  limit: number;
  burst: number;
}

export interface WsLimitSettings {
  /** WS_RATE_LIMIT_PER_MIN and WS_RATE_LIMIT_BURST. */
  messages: WsRate;
  iceCandidates: WsRate;
  /** Offer, answer, hangup and the like. */
  signaling: WsRate;
  /** ICE candidates in all for one call, both parties combined. */
  iceCandidatesPerCall: number;
}

export const DEFAULT_WS_LIMITS: Readonly<WsLimitSettings> = Object.freeze({
  messages: { limit: 30, burst: 10 },
  iceCandidates: { limit: 100, burst: 30 },
  signaling: { limit: 10, burst: 5 },
  iceCandidatesPerCall: 50,
});

/** The scope names, as reported to RateLimiter's onDecision. */
export type WsLimitName =
  'ws_message' | 'ws_ice_candidate' | 'ws_signaling' | 'ws_call_ice_candidates';

/** A refusal's `retryAfterMs` is null when waiting will not help: the call's ICE candidates are used up. */
export type WsVerdict =
  { allowed: true } | { allowed: false; refusedBy: WsLimitName; retryAfterMs: number | null };

const MINUTE_MS = 60_000;

/** Outlives any call, so the cap holds for a whole call; call ids are never reused, so expiry only frees memory. */
const CALL_COUNTER_TTL_MS = 24 * 60 * 60 * 1000;

export class WsLimits {
  private readonly settings: WsLimitSettings;

  constructor(
    private readonly limiter: RateLimiter,
    settings: Partial<WsLimitSettings> = {},
  ) {
    this.settings = { ...DEFAULT_WS_LIMITS, ...settings };
  }

  /** An application message (chat, typing, receipts...) from the user. */
  message(userId: string): Promise<WsVerdict> {
    return this.perUser('ws_message', this.settings.messages, userId);
  }

  /** A signaling frame (offer, answer, hangup and similar) from the user. */
  signaling(userId: string): Promise<WsVerdict> {
    return this.perUser('ws_signaling', this.settings.signaling, userId);
  }

  /** An ICE candidate from the user for the call: within the user's rate and the call's total. */
  async iceCandidate(userId: string, callId: string): Promise<WsVerdict> {
    const perUser = await this.perUser('ws_ice_candidate', this.settings.iceCandidates, userId);
    if (!perUser.allowed) return perUser;
    const scope = 'ws_call_ice_candidates';
    const quota = {
      scope,
      key: callId,
      total: this.settings.iceCandidatesPerCall,
      ttlMs: CALL_COUNTER_TTL_MS,
      failOpen: true,
    };
    const { allowed } = await this.limiter.consumeQuota(quota);
    return allowed ? { allowed } : { allowed, refusedBy: scope, retryAfterMs: null };
  }

  private async perUser(scope: WsLimitName, rate: WsRate, userId: string): Promise<WsVerdict> {
    const bucket = {
      scope,
      key: userId,
      limit: rate.limit,
      burst: rate.burst,
      windowMs: MINUTE_MS,
      failOpen: true,
    };
    const { allowed, retryAfterMs } = await this.limiter.consume(bucket);
    return allowed ? { allowed } : { allowed, refusedBy: scope, retryAfterMs };
  }
}

/** What the realtime tier asks of the WebSocket limits. */
export type WsFrameLimits = Pick<WsLimits, 'message' | 'signaling' | 'iceCandidate'>;

/** RATE_LIMITS_ENABLED=false: every frame is allowed (tests, benchmarks). */
export const UNLIMITED_WS_FRAMES: WsFrameLimits = Object.freeze({
  message: async () => ({ allowed: true }) as const,
  signaling: async () => ({ allowed: true }) as const,
  iceCandidate: async () => ({ allowed: true }) as const,
});
