/**
 * DueWork on a manual clock: it sleeps until the due time its last run answered, wakes earlier
 * for work it is told of, never runs more often than its minimum interval, polls at its safety
 * interval when it knows of nothing, and retries a failed run. An idle DueWork wakes once per
 * safety interval, not once per minimum interval (issue #29).
 */
import { DueWork } from '../../../src/platform/scheduling/due-work.js';
import { ManualClock } from './manual-clock.js';

const MIN_MS = 1000;
const SAFETY_MS = 30_000;

/** A DueWork whose runs are recorded (as ms since the clock's start) and answer `nextDue()`. */
function recordedWork(clock: ManualClock, nextDue: () => number | undefined = () => undefined) {
  const runs: number[] = [];
  const failures: unknown[] = [];
  const start = clock.now();
  let fail = false;
  const work = new DueWork({
    name: 'test-work',
    minIntervalMs: MIN_MS,
    safetyPollMs: SAFETY_MS,
    clock,
    run: async () => {
      runs.push(clock.now() - start);
      if (fail) throw new Error('the store is away');
      return nextDue();
    },
    onFailure: (error) => failures.push(error),
  });
  return {
    work,
    runs,
    failures,
    failNextRuns: (failing: boolean) => (fail = failing),
    at: (ms: number) => start + ms,
  };
}

it('an idle one runs once at start, then once per safety interval', async () => {
  const clock = new ManualClock();
  const { work, runs } = recordedWork(clock);
  work.start();
  await clock.advance(95_000);
  expect(runs).toEqual([
    MIN_MS,
    MIN_MS + SAFETY_MS,
    MIN_MS + 2 * SAFETY_MS,
    MIN_MS + 3 * SAFETY_MS,
  ]);
  expect(clock.firedAt.length).toBe(4);
  await work.stop();
});

it('sleeps until the due time its run answered', async () => {
  const clock = new ManualClock();
  const { work, runs, at } = recordedWork(clock, () => at(7_500));
  work.start();
  await clock.advance(8_000);
  expect(runs).toEqual([MIN_MS, 7_500]);
  await work.stop();
});

it('work created here wakes it at its due time, but not sooner than the minimum interval after the last run', async () => {
  const clock = new ManualClock();
  const { work, runs, at } = recordedWork(clock);
  work.start();
  await clock.advance(MIN_MS);
  expect(runs).toEqual([MIN_MS]);
  work.dueBy(at(4_000));
  work.dueBy(at(9_000)); // later than the armed time: changes nothing
  await clock.advance(3_500);
  expect(runs).toEqual([MIN_MS, 4_000]);
  work.dueBy(at(4_200)); // already due, but the last run was 200 ms ago
  await clock.advance(1_000);
  expect(runs).toEqual([MIN_MS, 4_000, 4_000 + MIN_MS]);
  await work.stop();
});

it('work announced during a run is not lost', async () => {
  const clock = new ManualClock();
  const { work, runs, at } = recordedWork(clock, () => {
    if (runs.length === 1) work.dueBy(at(3_000));
    return undefined;
  });
  work.start();
  await clock.advance(5_000);
  expect(runs).toEqual([MIN_MS, 3_000]);
  await work.stop();
});

it('a failed run is reported and retried after the minimum interval', async () => {
  const clock = new ManualClock();
  const { work, runs, failures, failNextRuns } = recordedWork(clock);
  failNextRuns(true);
  work.start();
  await clock.advance(2 * MIN_MS + 1);
  failNextRuns(false);
  await clock.advance(SAFETY_MS);
  expect(runs).toEqual([MIN_MS, 2 * MIN_MS, 3 * MIN_MS]);
  expect(failures).toHaveLength(2);
  await work.stop();
});

it('a stopped one never runs again', async () => {
  const clock = new ManualClock();
  const { work, runs, at } = recordedWork(clock);
  work.start();
  await work.stop();
  work.dueBy(at(2_000));
  await clock.advance(100_000);
  expect(runs).toEqual([]);
});
