/** TOTP secrets sealed at rest and the MFA master key: configured, or made once in DATA_DIR/keys. */
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SecretBox, loadMfaMasterKey } from '../../src/mfa/secret-box.js';
import {
  findUnusedCode,
  hashBackupCode,
  newBackupCodes,
  normalizeBackupCode,
} from '../../src/mfa/backup-codes.js';

const key = Buffer.alloc(32, 7);

it('seals with AES-256-GCM: a fresh IV each time, bound to the account, tamper-evident', () => {
  const box = new SecretBox(key);
  const sealed = box.seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', '0xabc');
  expect(sealed).not.toContain('JBSWY3DP');
  expect(box.seal('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', '0xabc')).not.toBe(sealed);
  expect(box.open(sealed, '0xabc')).toBe('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP');
  expect(() => box.open(sealed, '0xdef')).toThrow();
  const [format, iv, tag, ciphertext] = sealed.split('.') as [string, string, string, string];
  const flipped = Buffer.from(ciphertext, 'base64url');
  flipped[0] = flipped[0]! ^ 1;
  expect(() =>
    box.open([format, iv, tag, flipped.toString('base64url')].join('.'), '0xabc'),
  ).toThrow();
  expect(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed, '0xabc')).toThrow();
});

it('reads a configured key in hex or base64 and refuses anything else', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mfa-key-'));
  try {
    expect(await loadMfaMasterKey(key.toString('hex'), dataDir)).toEqual(key);
    expect(await loadMfaMasterKey(key.toString('base64'), dataDir)).toEqual(key);
    await expect(loadMfaMasterKey('too short', dataDir)).rejects.toThrow(/MFA_ENCRYPTION_KEY/);
    await expect(loadMfaMasterKey(Buffer.alloc(16).toString('base64'), dataDir)).rejects.toThrow(
      /MFA_ENCRYPTION_KEY/,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('makes the embedded key once, private, and reads the same key on every later start', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'mfa-key-'));
  try {
    const first = await loadMfaMasterKey(undefined, dataDir);
    const path = join(dataDir, 'keys', 'mfa-encryption.key');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(path, 'utf8'), 'base64')).toEqual(first);
    expect(await loadMfaMasterKey(undefined, dataDir)).toEqual(first);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

it('stores backup codes as keyed hashes that match only their own account and code', () => {
  const box = new SecretBox(key);
  const { codes, stored } = newBackupCodes(box, '0xabc');
  expect(JSON.stringify(stored)).not.toContain(codes[0]!.replace('-', ''));
  expect(
    findUnusedCode(
      stored,
      hashBackupCode(box, '0xabc', normalizeBackupCode(codes[3]!.toUpperCase())),
    ),
  ).toBe(3);
  expect(findUnusedCode(stored, hashBackupCode(box, '0xdef', normalizeBackupCode(codes[3]!)))).toBe(
    -1,
  );
  stored[3]!.usedAt = new Date();
  expect(findUnusedCode(stored, hashBackupCode(box, '0xabc', normalizeBackupCode(codes[3]!)))).toBe(
    -1,
  );
  expect(() => normalizeBackupCode('abc')).toThrow();
});
