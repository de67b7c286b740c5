/**
 * The registration proof of work (auth.proto, InitializeRequest `pow_nonce`): the first decimal
 * nonce such that sha256(message ‖ nonce) has at least `bits` leading zero bits. Synchronous
 * hashing (noble) rather than WebCrypto, whose one promise per hash would cost far more than the
 * hash itself; the loop yields to the event loop now and then so a page stays responsive.
 */
import { sha256 } from '@noble/hashes/sha2.js';

const encoder = new TextEncoder();
const HASHES_PER_SLICE = 4096;

export function leadingZeroBits(digest: Uint8Array): number {
  let bits = 0;
  for (const byte of digest) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

export async function solveProofOfWork(message: string, bits: number): Promise<string> {
  const prefix = encoder.encode(message);
  for (let counter = 0; ; counter++) {
    const nonce = encoder.encode(String(counter));
    const input = new Uint8Array(prefix.length + nonce.length);
    input.set(prefix);
    input.set(nonce, prefix.length);
    if (leadingZeroBits(sha256(input)) >= bits) return String(counter);
    if (counter % HASHES_PER_SLICE === HASHES_PER_SLICE - 1)
      await new Promise((resolve) => setTimeout(resolve, 0));
  }
}
