import { link, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Keeps a second process (or a second store in this process) from opening the same
 * DATA_DIR: LOCK holds the owner's pid. The file is made complete under a private name and
 * then hard-linked into place, which fails atomically if LOCK exists, so nobody ever reads a
 * half-written pid. A LOCK whose process is gone (kill -9) is taken over.
 * Returns the function that releases the lock.
 */
export async function acquireDataDirLock(dir: string): Promise<() => Promise<void>> {
  const lock = join(dir, 'LOCK');
  const mine = join(dir, `LOCK.${process.pid}`);
  await writeFile(mine, String(process.pid), { flush: true });
  try {
    for (;;) {
      try {
        await link(mine, lock);
        return () => rm(lock, { force: true });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = Number(await readFile(lock, 'utf8').catch(() => ''));
      if (isRunning(holder)) throw new Error(`DATA_DIR ${dir} is in use by process ${holder}`);
      await rm(lock, { force: true });
    }
  } finally {
    await rm(mine, { force: true });
  }
}

function isRunning(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
