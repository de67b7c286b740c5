/**
 * An idle service sleeps (issue #29: idle CPU <= 0.5 % of a core). Its background tasks
 * (sweepers, the push dispatcher, keepers) wake only when work is due or at their safety polls,
 * tens of seconds apart: over an idle stretch the whole service wakes well under once a second,
 * where fixed intervals woke it about ten times a second. Counted through the
 * `background_wakeups_total` metric of the running service (real HTTP), not by timing its CPU.
 */
import { startTestService, type TestService } from '../../support/start-service.js';

/** Wake-ups an idle service may make per second, all tasks together. */
const MAX_WAKEUPS_PER_SECOND = 0.6;
const WINDOW_MS = 10_000;

let service: TestService;
beforeAll(async () => {
  service = await startTestService({ LOG_LEVEL: 'warn' });
});
afterAll(() => service.stop());

async function wakeupsByTask(): Promise<Map<string, number>> {
  const text = await (await fetch(`${service.baseUrl}/metrics`)).text();
  const counts = new Map<string, number>();
  for (const [, task, count] of text.matchAll(
    /^background_wakeups_total\{task="([^"]+)"\} (\S+)$/gm,
  ))
    counts.set(task!, Number(count));
  return counts;
}

it('wakes well under once a second while idle', async () => {
  // The first runs after the start learn when their work is due.
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const before = await wakeupsByTask();
  await new Promise((resolve) => setTimeout(resolve, WINDOW_MS));
  const after = await wakeupsByTask();
  const woke = [...after].map(([task, count]) => [task, count - (before.get(task) ?? 0)] as const);
  const total = woke.reduce((sum, [, count]) => sum + count, 0);
  // The counter is read from the tasks that ran: the start's runs are in it.
  expect(after.size).toBeGreaterThanOrEqual(5);
  // On failure, the tasks that woke and how often.
  const limit = (MAX_WAKEUPS_PER_SECOND * WINDOW_MS) / 1000;
  expect(total <= limit ? 'asleep' : JSON.stringify(woke)).toBe('asleep');
}, 60_000);
