/**
 * The MFA master key and what it protects: TOTP secrets are sealed with AES-256-GCM (a fresh
 * 96-bit IV each time, the account address as associated data, so a sealed secret copied onto
 * another account does not open), and backup codes are stored as HMAC-SHA256 under a second
 * key, so a copy of the database alone does not allow testing guesses offline. Both keys are
 * derived from the master key with HKDF, one per purpose.
 *
 * The master key is MFA_ENCRYPTION_KEY, or a key made once in `<DATA_DIR>/keys/` (one node).
 */
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { ConfigError } from '../platform/config/setting.js';
import { readOrCreateKeyFile } from '../identity/tokens/key-file.js';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const FORMAT = 'v1';

/** The master key from its setting (64 hex digits or base64 of 32 bytes), or the embedded one. */
export async function loadMfaMasterKey(
  setting: string | undefined,
  dataDir: string,
): Promise<Buffer> {
  if (setting !== undefined) return parseKey(setting, 'MFA_ENCRYPTION_KEY');
  const text = await readOrCreateKeyFile(dataDir, 'mfa-encryption.key', async () =>
    randomBytes(KEY_BYTES).toString('base64'),
  );
  return parseKey(text.trim(), `the key file in ${dataDir}/keys`);
}

function parseKey(text: string, source: string): Buffer {
  const hex = /^[0-9a-fA-F]{64}$/.test(text);
  const key = Buffer.from(text, hex ? 'hex' : 'base64');
  // Node's base64 decoder skips what it cannot read; the round trip refuses such text.
  if (key.length !== KEY_BYTES || (!hex && key.toString('base64') !== text)) {
    throw new ConfigError(source, 'must be 32 bytes written as 64 hex digits or base64');
  }
  return key;
}

export class SecretBox {
  private readonly sealingKey: Buffer;
  private readonly macKey: Buffer;

  constructor(masterKey: Buffer) {
    this.sealingKey = Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'mfa totp secret sealing', KEY_BYTES),
    );
    this.macKey = Buffer.from(
      hkdfSync('sha256', masterKey, Buffer.alloc(0), 'mfa backup code mac', KEY_BYTES),
    );
  }

  /** `v1.<iv>.<tag>.<ciphertext>`, base64url parts. */
  seal(plaintext: string, associatedData: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.sealingKey, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [FORMAT, iv, cipher.getAuthTag(), ciphertext]
      .map((part) => (typeof part === 'string' ? part : part.toString('base64url')))
      .join('.');
  }

  /** Throws when the sealed text was altered, belongs to other associated data, or another key sealed it. */
  open(sealed: string, associatedData: string): string {
    const [format, iv, tag, ciphertext] = sealed.split('.');
    if (format !== FORMAT || iv === undefined || tag === undefined || ciphertext === undefined)
      throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.sealingKey, Buffer.from(iv, 'base64url'));
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([
      decipher.update(Buffer.from(ciphertext, 'base64url')),
      decipher.final(),
    ]).toString('utf8');
  }

  /** HMAC-SHA256 of `data`, hex. */
  mac(data: string): string {
    return createHmac('sha256', this.macKey).update(data, 'utf8').digest('hex');
  }
}
