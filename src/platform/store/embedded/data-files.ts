import { type FileHandle, open, readdir, rm } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Layout of DATA_DIR. Snapshot N holds the state as of the start of journal N; recovery
 * loads the newest snapshot and replays journals N, N+1, ... in order.
 */
export const snapshotPath = (dir: string, generation: number): string =>
  join(dir, `snapshot.${generation}.ejsonl`);
export const snapshotTempPath = (dir: string, generation: number): string =>
  join(dir, `snapshot.${generation}.tmp`);
export const journalPath = (dir: string, generation: number): string =>
  join(dir, `journal.${generation}.ejsonl`);

export interface DataFiles {
  snapshots: number[];
  journals: number[];
  /** Snapshots a crash interrupted before their rename. */
  temporaries: string[];
}

/** Generations present in `dir`, ascending. */
export async function listDataFiles(dir: string): Promise<DataFiles> {
  const files: DataFiles = { snapshots: [], journals: [], temporaries: [] };
  for (const name of await readdir(dir)) {
    const match = /^(snapshot|journal)\.(\d+)\.(ejsonl|tmp)$/.exec(name);
    if (!match) continue;
    const generation = Number(match[2]);
    if (match[3] === 'tmp') files.temporaries.push(join(dir, name));
    else if (match[1] === 'snapshot') files.snapshots.push(generation);
    else files.journals.push(generation);
  }
  files.snapshots.sort((a, b) => a - b);
  files.journals.sort((a, b) => a - b);
  return files;
}

/**
 * Deletes what snapshot `base` made obsolete (older snapshots and journals) and snapshots
 * an interrupted compaction left half-written.
 */
export async function removeObsolete(dir: string, base: number): Promise<void> {
  const { snapshots, journals, temporaries } = await listDataFiles(dir);
  const obsolete = [
    ...temporaries,
    ...snapshots
      .filter((generation) => generation < base)
      .map((generation) => snapshotPath(dir, generation)),
    ...journals
      .filter((generation) => generation < base)
      .map((generation) => journalPath(dir, generation)),
  ];
  await Promise.all(obsolete.map((path) => rm(path, { force: true })));
}

/** Makes a rename or a new file in `dir` itself durable, not only the file's contents. */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** A write to a regular file may in principle be short; loop until all bytes are down. */
export async function writeAll(handle: FileHandle, data: Buffer): Promise<void> {
  let offset = 0;
  while (offset < data.length) {
    const { bytesWritten } = await handle.write(data, offset, data.length - offset);
    offset += bytesWritten;
  }
}
