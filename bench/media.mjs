// Media throughput and memory: `POST /api/v1/upload-media` (the streamed raw form, and the JSON
// form for comparison) and `GET /api/v1/media/{id}` for 10 MiB blobs, one at a time, against
// the service (`node dist/main.js`, embedded store, blobs as files in DATA_DIR). Baselines in
// the same run: for uploads, the same bytes written (with fsync) by this process through
// node:fs; for downloads (whole, and a Range of the last 9 MiB answered 206), a plain node:http
// server in a process of its own streaming the same bytes from a file on the same disk
// (`fs.createReadStream` piped to the response, bench/baseline-server.mjs), fetched by the
// same client code; service and baseline alternate download by download, 2 × BENCH_MEDIA_COUNT
// each, and the rows give the median download's rate. Then 8 clients
// upload 25 MiB each at once while the server's resident memory is sampled every 10 ms:
// buffering those bodies would take 8 × 25 MiB = 200 MiB (8 × 34 MiB in the JSON form).
// BENCH_MEDIA_COUNT (default 10) sizes the throughput rows.
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startWithUsers } from './sign-in.mjs';
import {
  percentile,
  printRatio,
  printTable,
  residentBytes,
  startBaselineServer,
} from './support.mjs';

const MiB = 1_048_576;

async function timed(count, bytes, run) {
  const startedAt = performance.now();
  for (let index = 0; index < count; index++) await run(index);
  const seconds = (performance.now() - startedAt) / 1000;
  return Number(((count * bytes) / MiB / seconds).toFixed(1));
}

/** MiB/s writing `data` `count` times with fsync, through node:fs in this process. */
async function diskWrite(count, data) {
  const dir = mkdtempSync(path.join(tmpdir(), 'media-bench-'));
  try {
    return await timed(count, data.length, async (index) => {
      const file = await open(path.join(dir, String(index)), 'w');
      await file.write(data);
      await file.sync();
      await file.close();
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Seconds to download `url` once; the answer must be `status` with `length` bytes. */
async function download(url, headers, status, length) {
  const startedAt = performance.now();
  const response = await fetch(url, { headers });
  const body = Buffer.from(await response.arrayBuffer());
  if (response.status !== status || body.length !== length)
    throw new Error(`download ${url}: ${response.status}, ${body.length} bytes`);
  return (performance.now() - startedAt) / 1000;
}

/**
 * Service and baseline downloads of `length` bytes, one of each in turn, `rounds` times:
 * [service, baseline] in MiB/s at the median download's time. Alternating every download lets
 * both see the same moments of a loaded machine, and the median leaves out the downloads that
 * waited behind another process.
 */
async function sideBySide(rounds, length, service, baseline) {
  const times = [[], []];
  for (let round = 0; round < rounds; round++) {
    times[0].push(await service());
    times[1].push(await baseline());
  }
  return times.map((seconds) =>
    Number(
      (
        length /
        MiB /
        percentile(
          seconds.sort((a, b) => a - b),
          50,
        )
      ).toFixed(1),
    ),
  );
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
    const files = mkdtempSync(path.join(tmpdir(), 'media-bench-files-'));
    writeFileSync(path.join(files, 'blob'), data);
    const plain = await startBaselineServer({ BASELINE_FILES_DIR: files });
    const served = `${base}/api/v1/media/${mediaId}`;
    const streamed = `http://127.0.0.1:${plain.port}/files/blob`;
    const lastNine = { range: `bytes=${MiB}-` };
    let whole, ranged;
    try {
      whole = await sideBySide(
        2 * count,
        data.length,
        () => download(served, auth(), 200, data.length),
        () => download(streamed, {}, 200, data.length),
      );
      ranged = await sideBySide(
        2 * count,
        data.length - MiB,
        () => download(served, { ...auth(), ...lastNine }, 206, data.length - MiB),
        () => download(streamed, lastNine, 206, data.length - MiB),
      );
    } finally {
      await plain.stop();
      rmSync(files, { recursive: true, force: true });
    }
    const write = await diskWrite(count, data);
    const row = (mibPerSecond, baseline) => ({
      'MiB/s': mibPerSecond,
      'baseline MiB/s': baseline,
      ratio: Number((mibPerSecond / baseline).toFixed(2)),
    });
    printTable(
      `Media, ${count} blobs of 10 MiB one at a time (MiB/s; baselines: node:fs with fsync in the bench process for uploads, a node:http server streaming the file from disk for downloads)`,
      {
        'upload, streamed raw body': row(raw, write),
        'upload, JSON (base64) body': row(jsonForm, write),
        download: row(...whole),
        'download, Range of the last 9 MiB (206)': row(...ranged),
      },
    );
    printRatio(
      'media download 10 MiB / node:http streaming the file',
      whole[0] / whole[1],
      '>=',
      0.9,
    );
    printRatio(
      'media Range download / node:http streaming the range',
      ranged[0] / ranged[1],
      '>=',
      0.9,
    );
  } finally {
    await service.stop();
  }
}
