/**
 * A client's side of message franking written in the test with node:crypto only (never the
 * service's code), from the construction documented in moderation.proto: the commitment
 * `HMAC-SHA256(k, plaintext)` under a fresh 32-byte key, and the check of the server's Ed25519
 * tag over the documented lines with the published raw public key.
 */
import { createHmac, createPublicKey, randomBytes, verify } from 'node:crypto';

export interface Franked {
  readonly plaintext: Buffer;
  readonly key: Buffer;
  readonly commitment: Buffer;
  /** What the sender would encrypt: the plaintext with the key inside (opaque to the server). */
  readonly ciphertext: Buffer;
}

export function frank(text: string): Franked {
  const plaintext = Buffer.from(text, 'utf8');
  const key = randomBytes(32);
  const commitment = createHmac('sha256', key).update(plaintext).digest();
  // A stand-in for the end-to-end encryption: random bytes the server cannot relate to either.
  return { plaintext, key, commitment, ciphertext: randomBytes(48) };
}

export interface DeliveredMessage {
  readonly id: string;
  readonly conversation_id: string;
  readonly sender_address: string;
  readonly sent_at: string;
  readonly franking_commitment: string;
  readonly franking_tag: string;
  readonly franking_key_id: string;
}

/** Verifies the tag of a delivered message (REST JSON: bytes as base64) with a raw Ed25519 key. */
export function tagVerifies(message: DeliveredMessage, rawPublicKeyBase64: string): boolean {
  const lines = [
    'messaging-franking-v1',
    message.franking_key_id,
    message.id,
    message.conversation_id,
    message.sender_address,
    String(Date.parse(message.sent_at)),
    Buffer.from(message.franking_commitment, 'base64').toString('hex'),
  ].join('\n');
  const key = createPublicKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(rawPublicKeyBase64, 'base64').toString('base64url'),
    },
    format: 'jwk',
  });
  return verify(null, Buffer.from(lines, 'utf8'), key, Buffer.from(message.franking_tag, 'base64'));
}
