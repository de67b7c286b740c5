// Media throughput and memory: `POST /api/v1/upload-media` (the streamed raw form, and the JSON
// form for comparison) and `GET /api/v1/media/{id}` for 10 MiB blobs, one at a time, against
// the service (`node dist/main.js`, embedded store, blobs as files in DATA_DIR); the baseline
// is the same bytes written (with fsync) and read back by this process through node:fs, so the
// ratio says what HTTP, the pipeline and the blob store add to the disk. Then 8 clients upload
// 25 MiB each at once while the server's resident memory is sampled every 10 ms: buffering
// those bodies would take 8 × 25 MiB = 200 MiB (8 × 34 MiB in the JSON form).
// BENCH_MEDIA_COUNT (default 10) sizes the throughput rows.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { open, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWithUsers } from './sign-in.mjs';
import { printTable, residentBytes } from './support.mjs';

const MiB = 1_048_576;

async function timed(count, bytes, run) {
  const startedAt = performance.now();
  for (let index = 0; index < count; index++) await run(index);
  const seconds = (performance.now() - startedAt) / 1000;
  return Number(((count * bytes) / MiB / seconds).toFixed(1));
}

async function baseline(count, data) {
  const dir = mkdtempSync(path.join(tmpdir(), 'media-bench-'));
  try {
    const write = await timed(count, data.length, async (index) => {
      const file = await open(path.join(dir, String(index)), 'w');
      await file.write(data);
      await file.sync();
      await file.close();
    });
    const read = await timed(count, data.length, (index) =>
      readFile(path.join(dir, String(index))),
    );
    return { write, read };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchMedia({ count = Number(process.env.BENCH_MEDIA_COUNT ?? 10) } = {}) {
  const { service, base, sessions } = await startWithUsers(8, `media${Date.now().toString(36)}`);
  try {
    const auth = (index = 0) => ({ authorization: `Bearer ${sessions[index].access_token}` });
    const uploadRaw = async (body, kind, who = 0) => {
      const response = await fetch(`${base}/api/v1/upload-media?kind=${kind}`, {
        method: 'POST',
        headers: { ...auth(who), 'content-type': 'application/octet-stream' },
        body,
      });
      const reply = await response.json();
      if (!response.ok) throw new Error(`upload: ${response.status} ${JSON.stringify(reply)}`);
      return reply;
    };
    // Peak memory while 8 clients upload 25 MiB each at once, first, on the fresh server (the
    // JSON rows below grow its heap, which would hide the growth).
    const big = randomBytes(25 * MiB);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = residentBytes(service.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(service.pid))), 10);
    const startedAt = performance.now();
    await Promise.all(Array.from({ length: 8 }, (_, who) => uploadRaw(big, 'video', who)));
    const seconds = (performance.now() - startedAt) / 1000;
    clearInterval(sampler);
    peak = Math.max(peak, residentBytes(service.pid));
    printTable('8 clients upload 25 MiB each at once (streamed raw body)', {
      'server RSS': {
        'before MiB': Number((before / MiB).toFixed(1)),
        'peak MiB': Number((peak / MiB).toFixed(1)),
        'growth MiB': Number(((peak - before) / MiB).toFixed(1)),
        'buffering would need MiB': 200,
        'aggregate MiB/s': Number(((8 * 25) / seconds).toFixed(1)),
      },
    });
    const data = randomBytes(10 * MiB);
    const sha256 = createHash('sha256').update(data).digest('hex');
    const json = JSON.stringify({
      kind: 'file',
      content_type: 'application/octet-stream',
      data: data.toString('base64'),
    });
    let mediaId = '';
    const raw = await timed(count, data.length, async () => {
      const reply = await uploadRaw(data, 'file');
      if (reply.sha256 !== sha256) throw new Error('upload: wrong sha256');
      mediaId = reply.media_id;
    });
    const jsonForm = await timed(count, data.length, async () => {
      const response = await fetch(`${base}/api/v1/upload-media`, {
        method: 'POST',
        headers: { ...auth(), 'content-type': 'application/json' },
        body: json,
      });
      if (!response.ok) throw new Error(`JSON upload: ${response.status}`);
      await response.arrayBuffer();
    });
    const download = await timed(count, data.length, async () => {
      const response = await fetch(`${base}/api/v1/media/${mediaId}`, { headers: auth() });
      const body = Buffer.from(await response.arrayBuffer());
      if (!response.ok || body.length !== data.length)
        throw new Error(`download: ${response.status}, ${body.length} bytes`);
    });
    const disk = await baseline(count, data);
    printTable(
      `Media, ${count} blobs of 10 MiB one at a time (MiB/s; baseline: node:fs with fsync in the bench process)`,
      {
        'upload, streamed raw body': {
          'MiB/s': raw,
          'baseline MiB/s': disk.write,
          ratio: Number((raw / disk.write).toFixed(2)),
        },
        'upload, JSON (base64) body': {
          'MiB/s': jsonForm,
          'baseline MiB/s': disk.write,
          ratio: Number((jsonForm / disk.write).toFixed(2)),
        },
        download: {
          'MiB/s': download,
          'baseline MiB/s': disk.read,
          ratio: Number((download / disk.read).toFixed(2)),
        },
      },
    );
  } finally {
    await service.stop();
  }
}
