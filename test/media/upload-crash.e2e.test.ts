/**
 * The service killed with SIGKILL in the middle of a streamed upload: no blob of it is left
 * that reads back truncated, the restart removes the partial file, the upload's record stays
 * `uploading` (the sweeper's, after an hour: release-time.ts) and uploads work again.
 */
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { startChildService } from '../support/child-service.js';
import { silentLogger } from '../support/silent-logger.js';
import { bearer, signIn } from '../support/wallet.js';

const MiB = 1_048_576;

async function incomingBytes(dataDir: string): Promise<number> {
  const dir = join(dataDir, 'media', 'incoming');
  const files = await readdir(dir).catch(() => [] as string[]);
  const sizes = await Promise.all(
    files.map((file) =>
      stat(join(dir, file)).then(
        (s) => s.size,
        () => 0,
      ),
    ),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

test('kill -9 mid-upload leaves no readable blob; the restart cleans the partial file', async () => {
  const dataDir = await mkdtemp(join(tmpdir(), 'upload-crash-'));
  const service = await startChildService({ RATE_LIMITS_ENABLED: 'false' }, { dataDir });
  try {
    const alice = await signIn(service.baseUrl);
    // A 25 MiB upload sent slowly, 256 KiB at a time, until the process dies.
    const request = httpRequest(`${service.baseUrl}/api/v1/upload-media?kind=video`, {
      method: 'POST',
      headers: {
        ...bearer(alice),
        'content-type': 'application/octet-stream',
        'content-length': String(25 * MiB),
      },
    });
    request.on('error', () => undefined);
    const sender = setInterval(() => request.write(Buffer.alloc(256 * 1024, 9)), 20);
    for (let waited = 0; (await incomingBytes(dataDir)) < 2 * MiB; waited += 50) {
      if (waited > 20_000) throw new Error('the upload never reached the blob store');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await service.kill();
    clearInterval(sender);
    request.destroy();

    expect(await incomingBytes(dataDir)).toBeGreaterThan(0);
    // Nothing but the temporary file: no blob under a final name.
    expect(await readdir(join(dataDir, 'media'))).toEqual(['incoming']);

    await service.restart();
    expect(await readdir(join(dataDir, 'media', 'incoming'))).toEqual([]);
    const uploaded = await fetch(`${service.baseUrl}/api/v1/upload-media?kind=file`, {
      method: 'POST',
      headers: { ...bearer(alice), 'content-type': 'application/octet-stream' },
      body: Buffer.alloc(1000, 1),
    });
    expect(uploaded.status).toBe(200);
    const { media_id: id } = (await uploaded.json()) as { media_id: string };
    const downloaded = await fetch(`${service.baseUrl}/api/v1/media/${id}`, {
      headers: bearer(alice),
    });
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(Buffer.alloc(1000, 1))).toBe(true);
  } finally {
    await service.stop();
  }
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  try {
    const states = (await store.collection<{ _id: string; state: string }>('media').find({}))
      .map((item) => item.state)
      .sort();
    expect(states).toEqual(['stored', 'uploading']);
  } finally {
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}, 60_000);
