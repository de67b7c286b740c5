/**
 * The exact bytes a franking tag signs and the check of a revealed plaintext against its
 * commitment: the construction documented in moderation.proto, which clients and the tests'
 * independent implementation follow byte for byte.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FrankingBinding } from '../../messaging/messages/send-admission.js';

const VERSION = 'messaging-franking-v1';

/** The UTF-8 lines of the binding, joined by LF, no trailing newline. */
export function frankingPayload(keyId: string, binding: FrankingBinding): Buffer {
  return Buffer.from(
    [
      VERSION,
      keyId,
      binding.messageId,
      binding.conversationId,
      binding.senderAddress,
      String(binding.sentAt.getTime()),
      Buffer.from(binding.commitment).toString('hex'),
    ].join('\n'),
    'utf8',
  );
}

/** Whether `HMAC-SHA256(key, plaintext)` is the commitment (compared in constant time). */
export function opensCommitment(
  commitment: Uint8Array,
  frankingKey: Uint8Array,
  plaintext: Uint8Array,
): boolean {
  const computed = createHmac('sha256', frankingKey).update(plaintext).digest();
  return computed.length === commitment.length && timingSafeEqual(computed, commitment);
}
