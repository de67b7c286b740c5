/**
 * A small seeded generator (mulberry32): the same `SOAK_SEED` draws the same fault schedule
 * and the same workload choices, so a failing run can be repeated. Not for cryptography.
 */
export class SeededRandom {
  private state: number;

  constructor(seed: number) {
    this.state = seed >>> 0;
  }

  /** A number in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  }

  /** An integer in [min, max]. */
  between(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!;
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  /** An independent generator for one actor, so that actors' draws do not depend on timing. */
  fork(): SeededRandom {
    return new SeededRandom(Math.floor(this.next() * 2 ** 32));
  }
}
