/**
 * Recovery backup codes (recovery.proto, SetupRecovery): 12 one-time codes of 20 lowercase
 * letters and digits (about 103 bits each), shown once as `xxxxx-xxxxx-xxxxx-xxxxx`. Only keyed
 * hashes are stored, bound to the configuration they belong to, so a code of an earlier setup
 * never matches a later one.
 */
import { randomInt } from 'node:crypto';
import { sameDigest } from '../platform/secrets/same-digest.js';

export const RECOVERY_CODE_COUNT = 12;
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const LENGTH = 20;
/** Longest input accepted before normalising (room for hyphens and spaces). */
export const MAX_CODE_INPUT = 64;

export interface StoredRecoveryCode {
  hash: string;
  usedAt: Date | null;
}

/** A keyed hash (the service's secret MAC). */
export type KeyedHash = (text: string) => string;

const hashOf = (mac: KeyedHash, configurationId: string, normalized: string) =>
  mac(`recovery-code:${configurationId}:${normalized}`);

export function newRecoveryCodes(
  mac: KeyedHash,
  configurationId: string,
): { codes: string[]; stored: StoredRecoveryCode[] } {
  const codes = Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    const raw = Array.from({ length: LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]).join('');
    return raw.match(/.{5}/g)!.join('-');
  });
  return {
    codes,
    stored: codes.map((code) => ({
      hash: hashOf(mac, configurationId, normalizeRecoveryCode(code)!),
      usedAt: null,
    })),
  };
}

/** The code without hyphens and spaces, lowercase; undefined when it cannot be a code. */
export function normalizeRecoveryCode(input: string): string | undefined {
  if (input.length > MAX_CODE_INPUT) return undefined;
  const code = input.replace(/[-\s]/g, '').toLowerCase();
  return /^[a-z0-9]{20}$/.test(code) ? code : undefined;
}

/** The stored hash of an unused code equal to `normalized`, compared in constant time; undefined when none. */
export function findUnusedCode(
  mac: KeyedHash,
  configurationId: string,
  stored: readonly StoredRecoveryCode[],
  normalized: string,
): string | undefined {
  const hash = hashOf(mac, configurationId, normalized);
  let found: string | undefined;
  for (const code of stored)
    if (sameDigest(code.hash, hash) && code.usedAt === null) found = code.hash;
  return found;
}
