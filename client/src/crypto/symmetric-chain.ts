/**
 * The symmetric-key chain both the Double Ratchet's sending/receiving chains and sender keys
 * advance (Signal's KDF_CK): message key = HMAC-SHA256(ck, 0x01), next chain key =
 * HMAC-SHA256(ck, 0x02). A chain only moves forward, so a message key, once deleted, cannot be
 * derived again from anything kept.
 *
 * Keys of messages that have not arrived yet are kept so that they open out of order, within
 * bounds: a message may be at most MAX_SKIP ahead of its chain, and at most MAX_SKIPPED_KEPT
 * such keys are kept per session or sender key (the oldest are dropped, making those lost
 * messages unreadable) — so a forged message number cannot make a client derive or store
 * unbounded keys.
 */
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { E2eeError } from './e2ee-error.js';

export const MAX_SKIP = 1000;
export const MAX_SKIPPED_KEPT = 2000;

const MESSAGE_KEY_SEED = Uint8Array.of(0x01);
const CHAIN_KEY_SEED = Uint8Array.of(0x02);

export function advanceChain(chainKey: Uint8Array): {
  chainKey: Uint8Array;
  messageKey: Uint8Array;
} {
  return {
    chainKey: hmac(sha256, chainKey, CHAIN_KEY_SEED),
    messageKey: hmac(sha256, chainKey, MESSAGE_KEY_SEED),
  };
}

/** A message key kept for a message of `chain` (a ratchet public key, a sender key id) not yet received. */
export interface SkippedKey {
  chain: string;
  index: number;
  messageKey: Uint8Array;
}

/** The skipped key for (`chain`, `index`), removed from `skipped`, or undefined. */
export function takeSkippedKey(
  skipped: SkippedKey[],
  chain: string,
  index: number,
): Uint8Array | undefined {
  const at = skipped.findIndex((key) => key.chain === chain && key.index === index);
  if (at < 0) return undefined;
  return skipped.splice(at, 1)[0]!.messageKey;
}

/**
 * Advances `chainKey` from message `from` to message `until`, keeping the keys in between in
 * `skipped` (mutated); refuses to go more than MAX_SKIP ahead.
 */
export function skipTo(
  chainKey: Uint8Array,
  chain: string,
  from: number,
  until: number,
  skipped: SkippedKey[],
): Uint8Array {
  if (until - from > MAX_SKIP)
    throw new E2eeError('TOO_MANY_SKIPPED', `message is ${until - from} ahead of its chain`);
  let key = chainKey;
  for (let index = from; index < until; index++) {
    const step = advanceChain(key);
    skipped.push({ chain, index, messageKey: step.messageKey });
    key = step.chainKey;
  }
  skipped.splice(0, Math.max(0, skipped.length - MAX_SKIPPED_KEPT));
  return key;
}
