/**
 * Random secrets of a session and their stored form. Only hashes are stored; comparisons are
 * constant-time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export const newSecret = (bytes = 32): string => randomBytes(bytes).toString('base64url');

export const hashSecret = (secret: string): string =>
  createHash('sha256').update(secret).digest('hex');

/** Constant-time comparison of a presented secret with a stored hash. */
export function matchesHash(secret: string, storedHash: string): boolean {
  const presented = Buffer.from(hashSecret(secret), 'hex');
  const stored = Buffer.from(storedHash, 'hex');
  return presented.length === stored.length && timingSafeEqual(presented, stored);
}
