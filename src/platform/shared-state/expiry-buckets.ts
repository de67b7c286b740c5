import TinyQueue from 'tinyqueue';

/**
 * Keys filed by when they expire, in buckets `bucketMs` wide, so that MemoryStore's sweep takes
 * the keys whose bucket has passed without reading the others. The sweep used to read every
 * entry each second: with the replay logs of a day (one key per event) that was a loop block
 * growing with the history, every second, busy or idle.
 *
 * A key is in at most one bucket (MemoryStore remembers which); the bucket may be earlier than
 * its expiry, since a later expiry does not move the key (the counters' TTL is renewed by every
 * event): the sweep files it again when that bucket comes up.
 */
export class ExpiryBuckets {
  private readonly buckets = new Map<number, Set<string>>();
  /** The numbers of the buckets in `buckets`, earliest first. */
  private readonly order = new TinyQueue<number>();

  constructor(private readonly bucketMs: number) {}

  bucketOf(at: number): number {
    return Math.floor(at / this.bucketMs);
  }

  /** Files `key` in the bucket of `at`, and answers that bucket. */
  add(key: string, at: number): number {
    const bucket = this.bucketOf(at);
    let keys = this.buckets.get(bucket);
    if (keys === undefined) {
      keys = new Set();
      this.buckets.set(bucket, keys);
      this.order.push(bucket);
    }
    keys.add(key);
    return bucket;
  }

  remove(key: string, bucket: number): void {
    this.buckets.get(bucket)?.delete(key);
  }

  /** When the earliest bucket has wholly passed (on the clock `at` is read from); undefined when none. */
  nextDueAt(): number | undefined {
    const earliest = this.order.peek();
    return earliest === undefined ? undefined : (earliest + 1) * this.bucketMs;
  }

  /** Takes the keys of every bucket wholly passed at `now`. */
  takeDue(now: number): string[] {
    const due: string[] = [];
    for (
      let earliest = this.order.peek();
      earliest !== undefined && (earliest + 1) * this.bucketMs <= now;
      earliest = this.order.peek()
    ) {
      this.order.pop();
      for (const key of this.buckets.get(earliest) ?? []) due.push(key);
      this.buckets.delete(earliest);
    }
    return due;
  }
}
