/**
 * A secret key that a deployment configures none of: made once, on the first start, in
 * `<DATA_DIR>/keys/`, and read back on every later start, so that what it protects (tokens,
 * encrypted MFA secrets) survives restarts without any setup. Like the rest of DATA_DIR it
 * serves one node; several pods must configure a shared key instead.
 */
import { randomUUID } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { syncDirectory } from '../../platform/store/embedded/data-files.js';

export const keyFilePath = (dataDir: string, name: string): string => join(dataDir, 'keys', name);

/** The text of the key file `name`, written first from `create()` if there is none yet. */
export async function readOrCreateKeyFile(
  dataDir: string,
  name: string,
  create: () => Promise<string>,
): Promise<string> {
  const path = keyFilePath(dataDir, name);
  const existing = await readIfPresent(path);
  if (existing !== undefined) return existing;

  const directory = join(dataDir, 'keys');
  await mkdir(directory, { recursive: true, mode: 0o700 });
  const text = await create();
  // Complete and durable under a private name first, then hard-linked into place: a crash
  // never leaves a truncated key behind, and link (unlike rename) fails when the key exists,
  // so of two processes starting at once both end up with the one key that won.
  const temporary = `${path}.${process.pid}.${randomUUID()}.tmp`;
  try {
    // The mode applies at creation, before any byte of the key is written.
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(text);
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
