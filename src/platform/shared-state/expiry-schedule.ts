/**
 * Which keys of the in-memory store expire when, in buckets one sweep interval wide, so that a
 * sweep visits only the keys that are due. The sweep used to read every entry each second:
 * with a few hundred thousand replay-log events kept (a 1,000-member group) that was over a
 * quarter of the process, plus the garbage of iterating a large Map. Redis itself never scans
 * its whole key space either: its active expiry samples keys that have a TTL.
 */
export class ExpirySchedule {
  private readonly buckets = new Map<number, Set<string>>();
  private scheduled = 0;
  /** Every bucket up to this one has been taken. */
  private sweptThrough = -Infinity;

  constructor(private readonly bucketMs: number) {}

  /** Keys scheduled to expire. */
  get size(): number {
    return this.scheduled;
  }

  /**
   * The key's expiry moved from `from` to `to` (null: none). A counter whose TTL every write
   * renews stays in its bucket while the renewals fall within one interval.
   */
  move(key: string, from: number | null, to: number | null): void {
    if (from !== null && to !== null && this.bucketOf(from) === this.bucketOf(to)) return;
    if (from !== null) this.remove(key, from);
    if (to !== null) this.add(key, to);
  }

  private add(key: string, expiresAt: number): void {
    const bucket = this.bucketOf(expiresAt);
    let keys = this.buckets.get(bucket);
    if (keys === undefined) {
      keys = new Set();
      this.buckets.set(bucket, keys);
    }
    if (!keys.has(key)) {
      keys.add(key);
      this.scheduled += 1;
    }
  }

  private remove(key: string, expiresAt: number): void {
    const bucket = this.bucketOf(expiresAt);
    const keys = this.buckets.get(bucket);
    if (!keys?.delete(key)) return;
    this.scheduled -= 1;
    if (keys.size === 0) this.buckets.delete(bucket);
  }

  /**
   * Takes out the keys of every bucket that lies wholly before `now`: each of them has expired
   * (a key whose expiry moved was moved to its new bucket).
   */
  takeDue(now: number): string[] {
    const last = this.bucketOf(now) - 1;
    const due: string[] = [];
    const take = (bucket: number) => {
      const keys = this.buckets.get(bucket);
      if (keys === undefined) return;
      for (const key of keys) due.push(key);
      this.scheduled -= keys.size;
      this.buckets.delete(bucket);
    };
    // After an idle spell (or at the first sweep) there are fewer buckets than intervals passed.
    if (last - this.sweptThrough > this.buckets.size) {
      for (const bucket of [...this.buckets.keys()]) if (bucket <= last) take(bucket);
    } else {
      for (let bucket = this.sweptThrough + 1; bucket <= last; bucket++) take(bucket);
    }
    this.sweptThrough = last;
    return due;
  }

  private bucketOf(time: number): number {
    return Math.floor(time / this.bucketMs);
  }
}
