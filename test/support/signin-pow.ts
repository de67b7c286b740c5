/**
 * The client side of the sign-in proof of work, written from the contract (InitializeRequest
 * `pow_nonce`) and independent of the service's solver: sha256 over the UTF-8 bytes of the
 * message immediately followed by the UTF-8 bytes of the nonce, counted in leading zero bits.
 */
import { createHash } from 'node:crypto';

export function leadingZeroBits(message: string, nonce: string): number {
  const digest = createHash('sha256')
    .update(Buffer.from(message, 'utf8'))
    .update(Buffer.from(nonce, 'utf8'))
    .digest();
  let bits = 0;
  for (const byte of digest) {
    if (byte === 0) {
      bits += 8;
      continue;
    }
    return bits + Math.clz32(byte) - 24;
  }
  return bits;
}

/** The first decimal nonce (counting up from 0) whose hash has at least `bits` leading zero bits. */
export function solvePow(message: string, bits: number): string {
  for (let counter = 0; ; counter++) {
    if (leadingZeroBits(message, String(counter)) >= bits) return String(counter);
  }
}

/** The first decimal nonce whose hash has fewer than `bits` leading zero bits: a wrong answer. */
export function failingNonce(message: string, bits: number): string {
  for (let counter = 0; ; counter++) {
    if (leadingZeroBits(message, String(counter)) < bits) return String(counter);
  }
}
