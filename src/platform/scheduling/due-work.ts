/**
 * Background work done when it is due (sweepers, keepers, the store's TTL sweep): never two runs
 * at once, never keeping the process alive, and asleep while nothing is due (issue #29: fixed
 * intervals woke an idle service ten times a second).
 *
 * Each run answers when the work it left is next due; the next run comes then, or sooner when
 * `dueBy` tells of work this process created, or after `safetyPollMs` at the latest: the bound
 * on how late work is found that nobody here was told of (created by another process, or left by
 * one that died). Runs are `minIntervalMs` apart at least, so a burst of due times costs one run
 * per interval. A run that fails is reported and retried after `minIntervalMs`.
 */
import { type Clock, DueTimer, systemClock } from './due-timer.js';

export interface DueWorkOptions {
  /** Names the work in the wake-up counts (wakeups.ts). */
  readonly name: string;
  /** The shortest time between runs, and the wait before retrying a failed one. */
  readonly minIntervalMs: number;
  /** The longest time between runs (Infinity: none unless due or told). */
  readonly safetyPollMs: number;
  /** One run; answers when the work it knows of is next due (epoch ms), if it knows of any. */
  readonly run: () => Promise<number | undefined | void>;
  /** Told of a failed run (it is retried). */
  readonly onFailure: (error: unknown) => void;
  readonly clock?: Clock | undefined;
}

export class DueWork {
  private readonly timer: DueTimer;
  private readonly clock: Clock;
  private running: Promise<void> | undefined;
  /** Set from a run's first step to its end (`running` is set only once the run's first step returned). */
  private inRun = false;
  private started = false;
  private lastRunAt = -Infinity;
  /** The earliest time `dueBy` asked for while a run was in progress (armed after the run). */
  private askedDuringRun = Infinity;

  constructor(private readonly options: DueWorkOptions) {
    this.clock = options.clock ?? systemClock;
    this.timer = new DueTimer(options.name, () => void this.runOnce(), this.clock);
  }

  /** Schedules the first run `minIntervalMs` from now: it learns when the work left is due. */
  start(): void {
    this.started = true;
    this.timer.dueBy(this.clock.now() + this.options.minIntervalMs);
  }

  /** Stops the timer and waits for a run in progress. */
  async stop(): Promise<void> {
    this.started = false;
    this.timer.cancel();
    await this.running;
  }

  /** Work created here is due at `at` (epoch ms): a run comes then, or `minIntervalMs` after the last. */
  dueBy(at: number): void {
    if (!this.started) return;
    if (this.inRun) this.askedDuringRun = Math.min(this.askedDuringRun, at);
    else this.timer.dueBy(Math.max(at, this.lastRunAt + this.options.minIntervalMs));
  }

  /** One run now, or the one in progress; never rejects. */
  runOnce(): Promise<void> {
    this.running ??= this.runAndSchedule();
    return this.running;
  }

  private async runAndSchedule(): Promise<void> {
    this.inRun = true;
    this.lastRunAt = this.clock.now();
    let nextDue: number;
    try {
      nextDue = (await this.options.run()) ?? Infinity;
    } catch (error) {
      this.options.onFailure(error);
      nextDue = this.lastRunAt;
    }
    this.running = undefined;
    this.inRun = false;
    const asked = this.askedDuringRun;
    this.askedDuringRun = Infinity;
    if (!this.started) return;
    const { minIntervalMs, safetyPollMs } = this.options;
    const next = Math.min(nextDue, asked, this.clock.now() + safetyPollMs);
    this.timer.rearm(Math.max(next, this.lastRunAt + minIntervalMs));
  }
}
