/**
 * One timer for work that is due at a known time: armed for the earliest time it was told of,
 * it never keeps the process alive and counts each firing (wakeups.ts). Sweepers and pollers
 * used to wake on fixed intervals, about ten times a second in an idle service (issue #29);
 * with a DueTimer they sleep until their work is due.
 */
import { countWakeup } from './wakeups.js';

/** The time and the timers a DueTimer uses: the system's, or a test's. */
export interface Clock {
  now(): number;
  /** Calls `fire` after `ms` without keeping the process alive; answers a handle for `cancel`. */
  schedule(fire: () => void, ms: number): unknown;
  cancel(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  schedule: (fire, ms) => setTimeout(fire, ms).unref(),
  cancel: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

/** setTimeout's longest delay; a later time is reached in steps. */
const MAX_DELAY_MS = 2 ** 31 - 1;

export class DueTimer {
  private handle: unknown;
  /** The time the timer is armed for; Infinity when it is not armed. */
  private armedFor = Infinity;

  constructor(
    /** Names the task in the wake-up counts. */
    private readonly task: string,
    private readonly fire: () => void,
    private readonly clock: Clock = systemClock,
  ) {}

  /** The time it fires at (epoch ms), Infinity when not armed. */
  get dueAt(): number {
    return this.armedFor;
  }

  /** Fires at `at` (epoch ms) at the latest: an earlier time replaces the armed one, a later one is ignored. */
  dueBy(at: number): void {
    if (!(at < this.armedFor)) return;
    this.clock.cancel(this.handle);
    this.armedFor = at;
    const delay = Math.max(0, at - this.clock.now());
    this.handle = this.clock.schedule(
      delay > MAX_DELAY_MS ? () => this.step() : () => this.expire(),
      Math.min(delay, MAX_DELAY_MS),
    );
  }

  /** Fires at `at`, whether it was armed earlier or later. */
  rearm(at: number): void {
    this.cancel();
    this.dueBy(at);
  }

  cancel(): void {
    this.clock.cancel(this.handle);
    this.handle = undefined;
    this.armedFor = Infinity;
  }

  /** A step towards a time beyond setTimeout's reach: no wake-up of the task yet. */
  private step(): void {
    const at = this.armedFor;
    this.armedFor = Infinity;
    this.dueBy(at);
  }

  private expire(): void {
    this.handle = undefined;
    this.armedFor = Infinity;
    countWakeup(this.task);
    this.fire();
  }
}
