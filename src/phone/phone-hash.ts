/**
 * Phone hashes (phone.proto): PBKDF2-HMAC-SHA256 of the E.164 number with the service's public
 * salt (PHONE_HASH_SALT), 32 bytes as 64 lowercase hex digits; V2 takes 310,000 iterations,
 * legacy V1 100,000. The server computes them only to check what a client sent with the
 * number (SendSmsCode, MigratePhoneHash); numbers are never stored or logged.
 */
import { pbkdf2 } from 'node:crypto';
import { promisify } from 'node:util';
import { invalidArgument } from '../platform/errors/api-error.js';

const derive = promisify(pbkdf2);

export const HASH_ITERATIONS = { 1: 100_000, 2: 310_000 } as const;
export type PhoneHashVersion = keyof typeof HASH_ITERATIONS;

const E164 = /^\+[1-9]\d{7,14}$/;
const PHONE_HASH = /^[0-9a-f]{64}$/;

/** Runs on libuv's thread pool: a V2 hash costs about a tenth of a second of CPU. */
export async function phoneHash(
  phoneNumber: string,
  salt: string,
  version: PhoneHashVersion,
): Promise<string> {
  return (await derive(phoneNumber, salt, HASH_ITERATIONS[version], 32, 'sha256')).toString('hex');
}

export function requirePhoneNumber(value: string, field: string): string {
  if (!E164.test(value))
    throw invalidArgument(`${field} must be an E.164 number: + then 8 to 15 digits`);
  return value;
}

export function requirePhoneHash(value: string, field: string): string {
  if (!PHONE_HASH.test(value)) throw invalidArgument(`${field} must be 64 lowercase hex digits`);
  return value;
}
