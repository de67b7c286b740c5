/**
 * Numbers 1, 2, 3, ... per key (a conversation's messages, a channel's posts) with no number
 * given twice, across crashes and several processes, for the cost of the numbered record's own
 * durable write.
 *
 * - A number exists only in the record that holds it: a unique index on (key, number) makes
 *   the store the arbiter, so a crash before the record is durable leaves nothing behind, and
 *   the next record takes the same number.
 * - Each process appends one record per key at a time (its turn) and remembers the last number
 *   it wrote, so it never races itself and needs no read to pick the next. When another process
 *   took the number, the insert meets the unique index (`isTaken`): the last number is read
 *   again from the store (`lastStored`) and the next one tried.
 */
import { SerialQueues } from '../concurrency/serial-queues.js';
import { unavailable } from '../errors/api-error.js';

/** Other processes taking the number this many times in a row: the append is refused (503) to be retried. */
const MAX_ATTEMPTS = 10;
/** Keys whose last number a process keeps; the least recently used is read again when needed. */
const REMEMBERED_KEYS = 10_000;

export interface Append<R> {
  /**
   * Asked before each new attempt after another process took the number: the answer when that
   * process stored this very record (an identical request), null to write it.
   */
  readonly storedMeanwhile?: () => Promise<R | null>;
  /** Writes the record holding `sequence`; resolves once it is durable. */
  readonly write: (sequence: number) => Promise<R>;
}

export interface NumberedRecords {
  /** The highest number the store knows for the key (0 when none). */
  lastStored(key: string): Promise<number>;
  /** Whether a write failed because the number was already taken (the unique index). */
  isTaken(error: unknown): boolean;
}

export class SequenceNumbering {
  private readonly turns = new SerialQueues();
  /** The last number known per key, least recently used first. */
  private readonly lastNumbers = new Map<string, number>();

  constructor(private readonly records: NumberedRecords) {}

  /**
   * Appends a record under the key in its turn: alone among this process's appends to it, in
   * arrival order. `write` gets the next number, and again a fresh one while other processes
   * take it (unless `storedMeanwhile` answers). When `write` fails otherwise the number stays
   * free for the next record.
   */
  append<R>(key: string, append: Append<R>): Promise<R> {
    return this.turns.run(key, async () => {
      for (let attempt = 1; ; attempt++) {
        const stored = attempt > 1 ? await append.storedMeanwhile?.() : null;
        if (stored) return stored;
        const sequence = (await this.lastNumber(key)) + 1;
        try {
          const written = await append.write(sequence);
          this.remember(key, sequence);
          return written;
        } catch (error) {
          if (!this.records.isTaken(error)) throw error;
          this.lastNumbers.delete(key);
          if (attempt === MAX_ATTEMPTS) throw unavailable('Too many concurrent writes here; retry');
        }
      }
    });
  }

  /** Forgets a key's last number (its records were deleted). */
  forget(key: string): void {
    this.lastNumbers.delete(key);
  }

  private async lastNumber(key: string): Promise<number> {
    const known = this.lastNumbers.get(key);
    if (known !== undefined) return known;
    const last = await this.records.lastStored(key);
    this.remember(key, last);
    return last;
  }

  private remember(key: string, last: number): void {
    this.lastNumbers.delete(key);
    this.lastNumbers.set(key, last);
    if (this.lastNumbers.size > REMEMBERED_KEYS)
      this.lastNumbers.delete(this.lastNumbers.keys().next().value!);
  }
}
