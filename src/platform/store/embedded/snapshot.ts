import { open, rename } from 'node:fs/promises';
import type { Database } from './database.js';
import { snapshotPath, snapshotTempPath, syncDirectory, writeAll } from './data-files.js';
import { readLines } from './line-reader.js';
import type { Mutation } from './mutation.js';
import { decodeRecord, encodeRecord, type SnapshotEnd } from './record-codec.js';

const CHUNK_BYTES = 1 << 20;

/**
 * Writes the captured state as snapshot `generation`: to a temporary file first, fsync'd,
 * then renamed into place and the directory fsync'd, so a snapshot file either exists
 * complete or not at all. Written in chunks so the event loop keeps serving requests.
 */
export async function writeSnapshot(
  dir: string,
  generation: number,
  state: Mutation[],
): Promise<void> {
  const temporary = snapshotTempPath(dir, generation);
  const file = await open(temporary, 'w');
  try {
    let chunk: string[] = [];
    let chunkBytes = 0;
    for (const mutation of state) {
      const line = encodeRecord(mutation);
      chunk.push(line);
      chunkBytes += line.length;
      if (chunkBytes >= CHUNK_BYTES) {
        await writeAll(file, Buffer.from(chunk.join('')));
        chunk = [];
        chunkBytes = 0;
      }
    }
    chunk.push(encodeRecord({ op: 'end', count: state.length }));
    await writeAll(file, Buffer.from(chunk.join('')));
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, snapshotPath(dir, generation));
  await syncDirectory(dir);
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
