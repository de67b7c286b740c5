/**
 * A Clock whose time moves only when a test says so: DueTimer and DueWork scheduled on it fire
 * in time order as `advance` passes their time, and each firing is counted, so that a test sees
 * exactly when and how often a scheduler wakes up.
 */
import type { Clock } from '../../../src/platform/scheduling/due-timer.js';

interface Scheduled {
  readonly at: number;
  readonly fire: () => void;
}

export class ManualClock implements Clock {
  private time = 1_000_000;
  private readonly scheduled = new Set<Scheduled>();
  /** The times (ms since the clock's start) at which a scheduled callback fired. */
  readonly firedAt: number[] = [];
  private readonly start = this.time;

  now(): number {
    return this.time;
  }

  schedule(fire: () => void, ms: number): unknown {
    const entry = { at: this.time + ms, fire };
    this.scheduled.add(entry);
    return entry;
  }

  cancel(handle: unknown): void {
    this.scheduled.delete(handle as Scheduled);
  }

  /** Moves time on by `ms`, firing what comes due in order and letting the work it starts settle. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const next = [...this.scheduled].sort((a, b) => a.at - b.at)[0];
      if (next === undefined || next.at > end) break;
      this.scheduled.delete(next);
      this.time = next.at;
      this.firedAt.push(this.time - this.start);
      next.fire();
    }
    this.time = end;
    await settle();
  }
}

/** Lets promise chains started by a firing run to their end (the work here never waits on I/O). */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await Promise.resolve();
}
