/**
 * The record directory with the DHT off (KEYS_DHT=off): the records of this process only, in
 * memory, under the same rules as the DHT. It serves a single api process; the store's copy of
 * every record is written back into it at start (the `onJoined` call).
 */
import type { RecordDirectory, RecordRules } from './record-directory.js';

export class LocalRecordDirectory implements RecordDirectory {
  private readonly records = new Map<string, Uint8Array>();

  constructor(private readonly rules: RecordRules) {}

  async put(key: string, value: Uint8Array): Promise<void> {
    await this.rules.validate(key, value);
    const current = this.records.get(key);
    // As a DHT node keeps what it is sent, and the reader's selection decides: keep the current one.
    if (current === undefined || this.rules.select(key, [current, value]) === 1)
      this.records.set(key, value);
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.records.get(key);
  }

  onJoined(listener: () => void): void {
    queueMicrotask(listener);
  }

  async close(): Promise<void> {
    this.records.clear();
  }
}
