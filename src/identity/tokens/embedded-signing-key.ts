/**
 * The signing key of a deployment that configures none: an Ed25519 private key (PKCS#8 PEM)
 * created on the first start in `<DATA_DIR>/keys/` and reused on every later start, so tokens
 * survive restarts without any setup. Like the rest of DATA_DIR it serves one node; several
 * pods must configure a shared key instead (see KeyRingConfig).
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { exportPKCS8, generateKeyPair } from 'jose';
import { syncDirectory } from '../../platform/store/embedded/data-files.js';

export const embeddedSigningKeyPath = (dataDir: string): string => join(dataDir, 'keys', 'signing-key.pem');

/** The PEM of the embedded signing key, created first if there is none yet. */
export async function readOrCreateEmbeddedSigningKey(dataDir: string): Promise<string> {
  const path = embeddedSigningKeyPath(dataDir);
  const existing = await readIfPresent(path);
  if (existing !== undefined) return existing;

  const directory = join(dataDir, 'keys');
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const { privateKey } = await generateKeyPair('EdDSA', { extractable: true });
  // Complete and durable under a private name first, then hard-linked into place: a crash
  // never leaves a truncated key behind, and link (unlike rename) fails when the key exists,
  // so of two processes starting at once both end up with the one key that won.
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    // The mode applies at creation, before any byte of the key is written.
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(await exportPKCS8(privateKey));
      await file.sync();
    } finally {
      await file.close();
    }
    await link(temporary, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(temporary, { force: true });
  }
  await syncDirectory(directory);
  return readFile(path, 'utf8');
}

async function readIfPresent(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

