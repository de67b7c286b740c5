import { timingSafeEqual } from 'node:crypto';

/** Constant-time equality of two hex digests (HMACs, hashes): no timing tells how much of a guess was right. */
export function sameDigest(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}
