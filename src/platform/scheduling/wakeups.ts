/**
 * How often each background task woke this process: the idle cost that issue #29 holds to
 * "idle CPU with 5,000 idle connections <= 0.5 % of a core". Every DueTimer counts its firings
 * here, so a test can check that an idle service sleeps (without timing its CPU) and
 * `background_wakeups_total` shows in production which task wakes a pod.
 */
const counts = new Map<string, number>();

export function countWakeup(task: string): void {
  counts.set(task, (counts.get(task) ?? 0) + 1);
}

/** The wake-ups so far of every task, by task name. */
export function wakeupCounts(): ReadonlyMap<string, number> {
  return counts;
}
