import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from '@noble/hashes/utils.js';

const SHA256_BITS = 256;
const POW_NONCE = /^[\x20-\x7e]{1,64}$/;

/** `pow_nonce` as the contract allows it: 1 to 64 printable ASCII characters. */
export function isWellFormedPowNonce(nonce: string): boolean {
  return POW_NONCE.test(nonce);
}

function assertBits(bits: number): void {
  if (!Number.isInteger(bits) || bits < 0 || bits > SHA256_BITS) {
    throw new RangeError(
      `proof-of-work bits must be an integer from 0 to ${SHA256_BITS}, got ${bits}`,
    );
  }
}

function startsWithZeroBits(digest: Uint8Array, bits: number): boolean {
  const fullBytes = bits >> 3;
  for (let i = 0; i < fullBytes; i++) if (digest[i] !== 0) return false;
  const remainder = bits & 7;
  return remainder === 0 || (digest[fullBytes] as number) >> (8 - remainder) === 0;
}

/**
 * Whether sha256(UTF-8 of `message` ‖ UTF-8 of `nonce`) starts with at least `bits` zero bits
 * (spec, "Wallet login", check 7). Zero bits is proof of work switched off, so anything passes.
 */
export function hasProofOfWork(message: string, nonce: string, bits: number): boolean {
  assertBits(bits);
  // Encoded apart, not as one string: a lone surrogate at the seam must not pair up with the
  // other side and change the bytes the client hashed.
  return startsWithZeroBits(sha256(concatBytes(utf8ToBytes(message), utf8ToBytes(nonce))), bits);
}

/**
 * Finds a nonce for `message` by counting up in decimal, as clients do. For clients, tests and
 * the benchmark: the server only ever checks. Expected work is 2^bits hashes.
 */
export function solveProofOfWork(message: string, bits: number): string {
  assertBits(bits);
  // The message's hash state is computed once; each attempt only hashes the nonce on top.
  const prefix = sha256.create().update(utf8ToBytes(message));
  for (let counter = 0; ; counter++) {
    const nonce = String(counter);
    if (startsWithZeroBits(prefix.clone().update(utf8ToBytes(nonce)).digest(), bits)) return nonce;
  }
}
