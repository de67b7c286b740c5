/**
 * One DHT read (with its verification) at a time per address on this process: fetches of an
 * owner that arrive while a read of that owner is in flight wait for it instead of each
 * querying the DHT (issue #29: the fetches that started together before an owner's first read
 * had finished made most of the DHT queries under load).
 *
 * Sharing must not serve a replaced bundle. A read that started before a publish was
 * acknowledged may find the record that publish replaced, so a fetch takes a shared read's
 * record only when
 * - the read started after the fetch arrived (it is then as fresh as a read of the fetch's
 *   own), or
 * - the record is byte for byte the store's current bundle as the fetch read it on arrival
 *   (every acknowledged publish is stored first, so that record is at least as new as any
 *   publish acknowledged before the fetch arrived: the verified copies' rule).
 * Otherwise the fetch waits for, or starts, a read that started after it arrived. Reads of an
 * address never overlap, so they fill the verified copy in the order they started; a read that
 * found a replaced record leaves a copy that no longer matches the store, replaced by the next
 * read's. A read that fails (the directory or a chain unreachable) fails its waiting fetches:
 * an error serves no bundle.
 */
import type { RecordDirectory } from '../../platform/dht/record-directory.js';
import type { SignedBundle } from '../bundle/signed-bundle.js';
import type { PhaseTimer } from '../keys-metrics.js';
import { InvalidKeyRecordError } from './key-record-rules.js';
import type { KeyRecordVerifier } from './key-record-rules.js';
import { sameBytes } from './verified-copies.js';
import type { VerifiedDirectoryCopies } from './verified-copies.js';

/** A record read from the directory with its verified bundle. */
export interface VerifiedRecord {
  readonly record: Uint8Array;
  readonly bundle: SignedBundle;
}

interface Read {
  /** Position on this process's arrival clock when the read started. */
  readonly startedAt: number;
  /** Undefined: the directory has no valid record for the address. */
  readonly result: Promise<VerifiedRecord | undefined>;
}

export class SharedDirectoryReads {
  private readonly inFlight = new Map<string, Read>();
  /** Orders fetch arrivals and read starts; only its order matters. */
  private clock = 0;

  constructor(
    private readonly directory: RecordDirectory,
    private readonly verifier: KeyRecordVerifier,
    private readonly copies: VerifiedDirectoryCopies,
  ) {}

  /**
   * The directory's current verified record for `address`, for a fetch that found `current` in
   * the store on arrival (undefined when this node's store does not hold the bundle).
   */
  async read(
    address: string,
    current: Uint8Array | undefined,
    timed: PhaseTimer,
  ): Promise<VerifiedRecord | undefined> {
    const arrival = ++this.clock;
    for (;;) {
      const read = this.inFlight.get(address) ?? this.start(address, current, timed);
      const result = await read.result;
      if (read.startedAt > arrival) return result;
      if (result && current && sameBytes(result.record, current)) return result;
      // The read started before this fetch and found another record: it ended and left the
      // map before this line runs, so the next turn waits for a read started after arrival.
    }
  }

  private start(address: string, current: Uint8Array | undefined, timed: PhaseTimer): Read {
    const result = this.readAndVerify(address, current, timed).finally(() => {
      if (this.inFlight.get(address) === read) this.inFlight.delete(address);
    });
    const read: Read = { startedAt: ++this.clock, result };
    this.inFlight.set(address, read);
    return read;
  }

  /** The DHT read ends at the first peer that returns `current`, the newest acknowledged record. */
  private async readAndVerify(
    address: string,
    current: Uint8Array | undefined,
    timed: PhaseTimer,
  ): Promise<VerifiedRecord | undefined> {
    const record = await timed('directory_read', () =>
      this.directory.get(address, { knownCurrent: current }),
    );
    if (!record) return undefined;
    const bundle = await timed('verification', () => this.verified(address, record));
    if (!bundle) return undefined;
    this.copies.remember(address, record, bundle);
    return { record, bundle };
  }

  private async verified(address: string, record: Uint8Array): Promise<SignedBundle | undefined> {
    try {
      return await this.verifier.check(address, record);
    } catch (error) {
      if (error instanceof InvalidKeyRecordError) return undefined;
      throw error;
    }
  }
}
