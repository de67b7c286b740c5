/**
 * A process killed with SIGKILL in the middle of writing a blob leaves no blob that reads back
 * truncated, and the next start of the store removes what the write left behind.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { FileBlobStore } from '../../src/media/storage/file-blob-store.js';
import { builtModule } from '../support/built-service.js';

const writer = fileURLToPath(new URL('./blob-crash-writer.mjs', import.meta.url));

it('a blob store killed mid-write leaves no readable blob, and its leftovers go at the next start', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'blob-crash-'));
  try {
    const child = spawn(
      process.execPath,
      [writer, builtModule('media/storage/file-blob-store.js'), dataDir, 'halfway'],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const lines = createInterface({ input: child.stdout });
    // Kill it once 4 MiB are on their way into the temporary file.
    for await (const line of lines) if (Number(line) >= 4 * 1_048_576) break;
    child.kill('SIGKILL');
    await new Promise((resolve) => child.once('exit', resolve));
    expect((await readdir(join(dataDir, 'media', 'incoming'))).length).toBe(1);
    expect(await readdir(join(dataDir, 'media'))).toEqual(['incoming']);

    const blobs = await FileBlobStore.open(dataDir);
    expect(await blobs.read('halfway')).toBeUndefined();
    expect(await readdir(join(dataDir, 'media', 'incoming'))).toEqual([]);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});
