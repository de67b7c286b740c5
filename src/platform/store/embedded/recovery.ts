import { open } from 'node:fs/promises';
import type { StoreLogger } from '../store-logger.js';
import { Database } from './database.js';
import { journalPath, listDataFiles, removeObsolete } from './data-files.js';
import { readLines } from './line-reader.js';
import type { Mutation } from './mutation.js';
import { decodeRecord } from './record-codec.js';
import { loadSnapshot } from './snapshot.js';

export interface Recovered {
  db: Database;
  /** Generation of the journal to continue appending to. */
  generation: number;
  /** Its size in bytes after any torn tail was cut off. */
  journalBytes: number;
}

/**
 * Rebuilds the state from DATA_DIR: the newest snapshot, then every journal from its
 * generation on. Files a finished compaction made obsolete and temporaries of an
 * interrupted one are removed.
 */
export async function recover(dir: string, logger: StoreLogger): Promise<Recovered> {
  const files = await listDataFiles(dir);
  const base = files.snapshots.at(-1) ?? 0;
  const db = new Database();
  if (files.snapshots.length > 0) await loadSnapshot(dir, base, db);
  const journals = files.journals.filter((generation) => generation >= base);
  let journalBytes = 0;
  for (const generation of journals)
    journalBytes = await replayJournal(journalPath(dir, generation), db, logger);
  await removeObsolete(dir, base);
  return { db, generation: journals.at(-1) ?? base, journalBytes };
}

/**
 * Applies a journal's records and returns the length of its valid part. An unfinished
 * last record (the process died while writing it, so it was never acknowledged) is cut
 * off; an unreadable record followed by more data is corruption and stops the open.
 */
async function replayJournal(path: string, db: Database, logger: StoreLogger): Promise<number> {
  let valid = 0;
  let torn: number | undefined;
  for await (const line of readLines(path)) {
    if (torn !== undefined) throw new Error(`journal ${path} is corrupt at byte ${torn}`);
    const record = line.terminated ? decodeRecord(line.text) : undefined;
    if (!Array.isArray(record)) {
      torn = valid;
      continue;
    }
    for (const mutation of record as Mutation[]) db.apply(mutation);
    valid = line.end;
  }
  if (torn !== undefined) {
    logger.warn({ path, validBytes: valid }, 'store journal: dropping an unfinished last record');
    const file = await open(path, 'r+');
    try {
      await file.truncate(valid);
      await file.sync();
    } finally {
      await file.close();
    }
  }
  return valid;
}
