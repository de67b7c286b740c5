import { type FileHandle, mkdir, open } from 'node:fs/promises';
import type {
  Collection,
  Document,
  DocumentStore,
  IndexSpec,
  QueryPlan,
  SortSpec,
} from '../document-store.js';
import { checkIndexSpec } from '../index-spec-rules.js';
import { DueWork } from '../../scheduling/due-work.js';
import type { StoreLogger } from '../store-logger.js';
import { ChangeSet } from './change-set.js';
import { acquireDataDirLock } from './data-dir-lock.js';
import { journalPath, removeObsolete, syncDirectory } from './data-files.js';
import type { Database } from './database.js';
import { type CollectionHost, EmbeddedCollection } from './embedded-collection.js';
import { Journal } from './journal.js';
import { recover } from './recovery.js';
import { writeSnapshot } from './snapshot.js';
import type { Table } from './table.js';

export interface EmbeddedStoreOptions {
  dataDir: string;
  logger: StoreLogger;
  /** Journal size that triggers a snapshot and a fresh journal. Default 64 MiB. */
  compactionThresholdBytes?: number | undefined;
  /**
   * The shortest time between two removals of expired TTL documents. Default 1 s. The sweep
   * comes when the earliest document expires, or this long after the last one if that is later.
   */
  ttlSweepIntervalMs?: number | undefined;
  /** Told how long each journal fdatasync took (the metrics). */
  onFsync?: ((seconds: number) => void) | undefined;
}

/**
 * The default engine: all data in memory, every acknowledged write in the journal in
 * DATA_DIR (see Journal), compacted into snapshots as it grows.
 */
export class EmbeddedDocumentStore implements DocumentStore, CollectionHost {
  private closed = false;
  private compaction: Promise<void> | undefined;
  /** Removes expired TTL documents; asleep until one expires (every TTL index's earliest). */
  private readonly sweeper: DueWork;

  private constructor(
    private readonly options: Required<EmbeddedStoreOptions>,
    private readonly db: Database,
    private readonly journal: Journal,
    private generation: number,
    private readonly releaseLock: () => Promise<void>,
  ) {
    this.sweeper = new DueWork({
      name: 'store-ttl-sweep',
      minIntervalMs: options.ttlSweepIntervalMs,
      // Only this process writes the store, and each write tells the sweeper of its expiries.
      safetyPollMs: Infinity,
      run: () => this.sweepExpired(),
      onFailure: (err) => options.logger.error({ err }, 'store TTL sweep failed'),
    });
    this.sweeper.start();
  }

  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedDocumentStore> {
    const settings: Required<EmbeddedStoreOptions> = {
      ...options,
      compactionThresholdBytes: options.compactionThresholdBytes ?? 64 * 1024 * 1024,
      ttlSweepIntervalMs: options.ttlSweepIntervalMs ?? 1000,
      onFsync: options.onFsync ?? (() => undefined),
    };
    await mkdir(settings.dataDir, { recursive: true });
    const releaseLock = await acquireDataDirLock(settings.dataDir);
    try {
      const { db, generation, journalBytes } = await recover(settings.dataDir, settings.logger);
      const journal = new Journal(
        await openJournalFile(settings.dataDir, generation),
        journalBytes,
        settings.onFsync,
      );
      settings.logger.info({ dataDir: settings.dataDir, generation }, 'embedded store opened');
      return new EmbeddedDocumentStore(settings, db, journal, generation, releaseLock);
    } catch (err) {
      await releaseLock();
      throw err;
    }
  }

  collection<T extends Document>(name: string): Collection<T> {
    return new EmbeddedCollection<T>(name, this);
  }

  async ensureIndexes(indexes: IndexSpec[]): Promise<void> {
    for (const spec of indexes) {
      checkIndexSpec(spec);
      await this.write(spec.collection, (changes) => changes.addIndex(spec));
    }
  }

  async explain(
    collection: string,
    filter: Record<string, unknown>,
    options: { sort?: SortSpec } = {},
  ): Promise<QueryPlan> {
    return this.read(collection).explain(filter, options.sort);
  }

  async ping(): Promise<void> {
    this.assertOpen();
    this.journal.assertWritable();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.sweeper.stop();
    await this.compaction;
    await this.journal.close();
    await this.releaseLock();
  }

  read(collection: string): Table {
    this.assertOpen();
    return this.db.table(collection);
  }

  async write<R>(collection: string, change: (changes: ChangeSet) => R): Promise<R> {
    const changes = new ChangeSet(collection, this.read(collection));
    let outcome: { value: R } | { error: unknown };
    try {
      outcome = { value: change(changes) };
    } catch (error) {
      outcome = { error };
    }
    // Writes made before a failure (e.g. an insertMany stopped by a duplicate) stay, as in MongoDB.
    if (changes.mutations.length > 0) {
      this.sweeper.dueBy(this.db.table(collection).earliestExpiry());
      await this.journal.append(changes.mutations);
      this.compactIfDue();
    }
    if ('error' in outcome) throw outcome.error;
    return outcome.value;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('store is closed');
  }

  /** Removes the documents expired now; answers when the next one expires. */
  private async sweepExpired(): Promise<number> {
    const now = Date.now();
    let next = Infinity;
    for (const spec of this.db.ttlIndexes()) {
      const table = this.db.table(spec.collection);
      const ids = table.takeExpired(spec.name, now);
      if (ids.length > 0)
        await this.write(spec.collection, (changes) => ids.forEach((id) => changes.delete(id)));
      next = Math.min(next, table.earliestExpiry());
    }
    return next;
  }

  private compactIfDue(): void {
    if (this.compaction || this.closed || this.journal.size < this.options.compactionThresholdBytes)
      return;
    this.compaction = this.compact()
      .catch((err: unknown) =>
        this.options.logger.error({ err }, 'store compaction failed; the journal keeps growing'),
      )
      .finally(() => (this.compaction = undefined));
  }

  /**
   * Starts journal N+1 and writes the state as of that instant as snapshot N+1. The
   * capture and the switch happen in one synchronous step, so the snapshot plus journal
   * N+1 is exactly the state; if the snapshot never completes, snapshot N with journals
   * N and N+1 still is.
   */
  private async compact(): Promise<void> {
    const { dataDir, logger } = this.options;
    const next = this.generation + 1;
    const file = await openJournalFile(dataDir, next);
    const state = this.db.capture();
    const retired = this.journal.rotate(file);
    this.generation = next;
    await writeSnapshot(dataDir, next, state);
    await retired;
    await removeObsolete(dataDir, next);
    const documents = state.collections.reduce((sum, { docs }) => sum + docs.length, 0);
    logger.info({ generation: next, documents }, 'store compacted');
  }
}

/** Opens (creating if needed) a journal for appending, with its directory entry made durable. */
async function openJournalFile(dir: string, generation: number): Promise<FileHandle> {
  const file = await open(journalPath(dir, generation), 'a');
  await syncDirectory(dir);
  return file;
}
