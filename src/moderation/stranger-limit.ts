/**
 * The spam limit (messages.proto, SendMessage): a new account (younger than
 * SPAM_NEW_ACCOUNT_AGE) may start direct chats with at most SPAM_STRANGER_LIMIT strangers in 24
 * hours; the next stranger is refused with `428 CHALLENGE_REQUIRED` until the caller answers a
 * CAPTCHA (AnswerChallenge), which allows as many again. A stranger is a peer who never wrote in
 * the chat: someone who answered is not counted, and a peer already counted is not counted
 * twice. Signal's rate-limit challenge is the model: the limit throttles, a human lifts it.
 *
 * The counts live in shared state for their 24 hours, like the rate limits' buckets: a Redis
 * that comes back empty forgets them, which only gives new accounts a fresh day. The per-peer
 * mark and the count are two keys (not one atomic step): two sends racing at the limit may both
 * pass, which a throttle can afford.
 */
import { Code } from '@connectrpc/connect';
import { apiError } from '../platform/errors/api-error.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DirectPeer } from '../messaging/messages/send-admission.js';

const WINDOW_MS = 24 * 3600_000;

export interface StrangerLimitSettings {
  readonly newAccountAgeMs: number;
  readonly strangerLimit: number;
}

const countKey = (sender: string) => `spam:strangers:${sender}`;
const peerKey = (sender: string, peer: string) => `spam:stranger:${sender}:${peer}`;

export const challengeRequired = () =>
  apiError(
    Code.FailedPrecondition,
    'CHALLENGE_REQUIRED',
    'Too many new conversations with people who have not answered: answer the CAPTCHA with POST /api/v1/moderation/challenge',
  );

export class StrangerLimit {
  constructor(
    private readonly sharedState: SharedState,
    private readonly settings: StrangerLimitSettings,
  ) {}

  /** Counts a first message to a stranger from a new account, or refuses it over the limit. */
  async admit(sender: string, accountCreatedAt: Date, direct: DirectPeer): Promise<void> {
    if (Date.now() - accountCreatedAt.getTime() >= this.settings.newAccountAgeMs) return;
    if (await this.sharedState.exists(peerKey(sender, direct.peer))) return;
    if (await direct.hasWritten()) return;
    const counted = Number((await this.sharedState.get(countKey(sender))) ?? 0);
    if (counted >= this.settings.strangerLimit) throw challengeRequired();
    await this.sharedState.set(peerKey(sender, direct.peer), '1', { ttlMs: WINDOW_MS });
    await this.sharedState.incrementBy(countKey(sender), 1, WINDOW_MS);
  }

  /** A CAPTCHA was answered: the sender may write to as many strangers again. */
  async lift(sender: string): Promise<void> {
    await this.sharedState.delete(countKey(sender));
  }
}
