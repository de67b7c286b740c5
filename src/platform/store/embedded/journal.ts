import type { FileHandle } from 'node:fs/promises';
import { writeAll } from './data-files.js';
import type { Mutation } from './mutation.js';
import { encodeRecord } from './record-codec.js';

type Entry =
  | {
      kind: 'record';
      file: FileHandle;
      line: string;
      resolve: () => void;
      reject: (err: unknown) => void;
    }
  | { kind: 'close'; file: FileHandle; resolve: () => void; reject: (err: unknown) => void };

/**
 * Append-only journal with group commit: records appended during one tick (and those that
 * arrive while an fsync is in progress) go to disk in one write and one fdatasync; each
 * record's promise resolves only after that fdatasync. One line of EJSON per operation, so
 * a line is applied whole or not at all on replay.
 */
export class Journal {
  private queue: Entry[] = [];
  private flushing = false;
  private failure: Error | undefined;

  constructor(
    private file: FileHandle,
    /** Bytes in the current journal file, including records not yet flushed. */
    private bytes: number,
    /** Told how long each fdatasync took (store_journal_fsync_seconds). */
    private readonly onFsync: (seconds: number) => void = () => undefined,
  ) {}

  get size(): number {
    return this.bytes;
  }

  /** Throws the error that stopped the journal (a failed write or fsync, or close). */
  assertWritable(): void {
    if (this.failure) throw this.failure;
  }

  append(mutations: Mutation[]): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const line = encodeRecord(mutations);
    this.bytes += Buffer.byteLength(line);
    return this.enqueue((resolve, reject) => ({
      kind: 'record',
      file: this.file,
      line,
      resolve,
      reject,
    }));
  }

  /**
   * Sends later records to `next`. Records already appended still go to the old file;
   * the promise resolves once they are durable and the old file is closed.
   */
  rotate(next: FileHandle): Promise<void> {
    const old = this.file;
    this.file = next;
    this.bytes = 0;
    return this.enqueue((resolve, reject) => ({ kind: 'close', file: old, resolve, reject }));
  }

  /** Flushes what is pending and closes the file; later appends are refused. */
  close(): Promise<void> {
    const closing = this.enqueue((resolve, reject) => ({
      kind: 'close',
      file: this.file,
      resolve,
      reject,
    }));
    this.failure ??= new Error('journal is closed');
    return closing;
  }

  private enqueue(
    make: (resolve: () => void, reject: (err: unknown) => void) => Entry,
  ): Promise<void> {
    return new Promise((resolve, reject) => {
      this.queue.push(make(resolve, reject));
      if (!this.flushing && this.queue.length === 1) setImmediate(() => void this.flush());
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    while (this.queue.length > 0) {
      const batch = this.takeBatch();
      try {
        await commit(batch, this.onFsync);
        for (const entry of batch) entry.resolve();
      } catch (err) {
        // After a failed fsync nothing is known about the file: refuse all further writes.
        this.failure = err instanceof Error ? err : new Error(String(err));
        for (const entry of [...batch, ...this.queue.splice(0)]) entry.reject(err);
      }
    }
    this.flushing = false;
  }

  /** The leading run of entries for one file: its records, plus the close that ends it. */
  private takeBatch(): Entry[] {
    const first = this.queue[0];
    let count = 0;
    while (count < this.queue.length) {
      const entry = this.queue[count]!;
      if (entry.file !== first?.file) break;
      count += 1;
      if (entry.kind === 'close') break;
    }
    return this.queue.splice(0, count);
  }
}

async function commit(batch: Entry[], onFsync: (seconds: number) => void): Promise<void> {
  const file = batch[0]?.file;
  if (!file) return;
  const lines = batch.flatMap((entry) => (entry.kind === 'record' ? [entry.line] : []));
  if (lines.length > 0) {
    await writeAll(file, Buffer.from(lines.join('')));
    const started = process.hrtime.bigint();
    await file.datasync();
    onFsync(Number(process.hrtime.bigint() - started) / 1e9);
  }
  if (batch.at(-1)?.kind === 'close') await file.close();
}
