/**
 * Helpers of the phone tests, built on node:crypto only: a phone with its number, its hashes
 * (PBKDF2-HMAC-SHA256 with the default public salt) and an Ed25519 identity key; and the SMS
 * codes read back from the development outbox in DATA_DIR.
 */
import { generateKeyPairSync, pbkdf2Sync, randomInt, sign } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export const PHONE_HASH_SALT = 'messaging-service-phone-v1';

export const phoneHashOf = (number: string, iterations: 100_000 | 310_000) =>
  pbkdf2Sync(number, PHONE_HASH_SALT, iterations, 32, 'sha256').toString('hex');

export class TestPhone {
  /** A number in the reserved fictional range, different for every phone. */
  readonly number = `+1555${String(randomInt(0, 10_000_000)).padStart(7, '0')}`;
  readonly hash = phoneHashOf(this.number, 310_000);
  readonly legacyHash = phoneHashOf(this.number, 100_000);
  readonly identityKey: { publicKey: KeyObject; privateKey: KeyObject } =
    generateKeyPairSync('ed25519');

  /** The raw 32-byte public key, standard base64. */
  get publicKey(): string {
    const jwk = this.identityKey.publicKey.export({ format: 'jwk' });
    return Buffer.from(jwk.x as string, 'base64url').toString('base64');
  }

  /** An Ed25519 signature of the UTF-8 text, standard base64. */
  sign(text: string, key: KeyObject = this.identityKey.privateKey): string {
    return sign(null, Buffer.from(text, 'utf8'), key).toString('base64');
  }
}

/** The code of the last SMS the outbox holds for `number`. */
export function lastSmsCode(dataDir: string, number: string): string {
  const lines = readFileSync(join(dataDir, 'sms-outbox.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { to: string; text: string });
  const text = lines.filter((line) => line.to === number).at(-1)?.text;
  const code = /\b(\d{6})\b/.exec(text ?? '')?.[1];
  if (!code) throw new Error(`no SMS code for ${number} in the outbox`);
  return code;
}
