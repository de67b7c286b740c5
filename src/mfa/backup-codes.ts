/**
 * Backup codes: 10 one-time codes of 8 lowercase letters and digits (about 41 bits each),
 * shown as `xxxx-xxxx`. Only their HMAC (SecretBox.mac) is stored; hyphens, spaces and case
 * are ignored on input.
 */
import { randomInt } from 'node:crypto';
import { invalidArgument } from '../platform/errors/api-error.js';
import { sameDigest } from '../platform/secrets/same-digest.js';
import type { SecretBox } from './secret-box.js';

export const BACKUP_CODE_COUNT = 10;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const LENGTH = 8;
/** Longest input accepted before normalising (room for spaces and hyphens). */
const MAX_INPUT = 32;

export interface StoredBackupCode {
  hash: string;
  usedAt: Date | null;
}

/** A new set: the codes to show once, and what to store. */
export function newBackupCodes(
  box: SecretBox,
  address: string,
): { codes: string[]; stored: StoredBackupCode[] } {
  const codes = Array.from({ length: BACKUP_CODE_COUNT }, () => {
    const raw = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return `${raw.slice(0, 4)}-${raw.slice(4)}`;
  });
  return {
    codes,
    stored: codes.map((code) => ({
      hash: hashBackupCode(box, address, normalizeBackupCode(code)),
      usedAt: null,
    })),
  };
}

/** The code without hyphens and spaces, lowercase; 400 when it cannot be a backup code. */
export function normalizeBackupCode(input: string): string {
  if (input.length > MAX_INPUT) throw invalidArgument('backup_code is malformed');
  const code = input.replace(/[-\s]/g, '').toLowerCase();
  if (!/^[a-z0-9]{8}$/.test(code))
    throw invalidArgument('backup_code must be 8 letters and digits (xxxx-xxxx)');
  return code;
}

export const hashBackupCode = (box: SecretBox, address: string, normalized: string): string =>
  box.mac(`backup-code:${address}:${normalized}`);

export const unusedCount = (stored: readonly StoredBackupCode[]): number =>
  stored.filter((code) => code.usedAt === null).length;

/** The index of the unused stored code matching `hash`, or -1; every entry is compared in constant time. */
export function findUnusedCode(stored: readonly StoredBackupCode[], hash: string): number {
  let found = -1;
  stored.forEach((entry, index) => {
    if (sameDigest(entry.hash, hash) && entry.usedAt === null) found = index;
  });
  return found;
}
