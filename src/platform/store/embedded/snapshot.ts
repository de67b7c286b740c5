import { open, rename } from 'node:fs/promises';
import { setImmediate } from 'node:timers/promises';
import type { CapturedState, Database } from './database.js';
import { snapshotPath, snapshotTempPath, syncDirectory, writeAll } from './data-files.js';
import { readLines } from './line-reader.js';
import type { Mutation } from './mutation.js';
import { decodeRecord, encodeRecord, type SnapshotEnd } from './record-codec.js';

const CHUNK_BYTES = 1 << 20;
/**
 * Longest stretch of encoding between two turns of the event loop: the requests that arrive
 * meanwhile wait at most this long (the bench's target for a delivery is 20 ms in all).
 */
const SLICE_MS = 4;

/**
 * Writes the captured state as snapshot `generation`: to a temporary file first, fsync'd,
 * then renamed into place and the directory fsync'd, so a snapshot file either exists
 * complete or not at all. Encoded in slices of at most SLICE_MS, each followed by a turn
 * of the event loop (a chunk's write, or setImmediate), so a compaction of any size never
 * holds up the requests being served for longer than that: encoded a 1 MiB chunk at a time, a
 * snapshot of 200,000 messages held the event loop 15-35 ms per chunk (bench/store.mjs).
 */
export async function writeSnapshot(
  dir: string,
  generation: number,
  state: CapturedState,
): Promise<void> {
  const temporary = snapshotTempPath(dir, generation);
  const file = await open(temporary, 'w');
  try {
    let chunk: string[] = [];
    let chunkBytes = 0;
    let count = 0;
    let sliceStartedAt = performance.now();
    for (const record of snapshotRecords(state)) {
      const line = encodeRecord(record);
      chunk.push(line);
      chunkBytes += line.length;
      count += 1;
      if (chunkBytes >= CHUNK_BYTES) {
        await writeAll(file, Buffer.from(chunk.join('')));
        chunk = [];
        chunkBytes = 0;
        sliceStartedAt = performance.now();
      } else if (performance.now() - sliceStartedAt >= SLICE_MS) {
        await setImmediate();
        sliceStartedAt = performance.now();
      }
    }
    chunk.push(encodeRecord({ op: 'end', count }));
    await writeAll(file, Buffer.from(chunk.join('')));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, snapshotPath(dir, generation));
  await syncDirectory(dir);
}

/** A snapshot's records in order: every index first, so that loading builds them as it goes. */
function* snapshotRecords(state: CapturedState): Generator<Mutation> {
  for (const spec of state.indexes) yield { op: 'index', spec };
  for (const { name, docs } of state.collections)
    for (const doc of docs) yield { op: 'put', c: name, doc };
}

/** Loads snapshot `generation` into `db`; any defect is corruption (snapshots are renamed in whole). */
export async function loadSnapshot(dir: string, generation: number, db: Database): Promise<void> {
  const path = snapshotPath(dir, generation);
  let count = 0;
  for await (const line of readLines(path)) {
    const record = line.terminated
      ? (decodeRecord(line.text) as Mutation | SnapshotEnd | undefined)
      : undefined;
    if (!record) throw new Error(`snapshot ${path} is corrupt at byte ${line.end}`);
    if (record.op === 'end') {
      if (record.count !== count) throw new Error(`snapshot ${path} is incomplete`);
      return;
    }
    db.apply(record);
    count += 1;
  }
  throw new Error(`snapshot ${path} has no end marker`);
}
