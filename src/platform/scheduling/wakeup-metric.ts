/**
 * `background_wakeups_total{task}`: the wake-ups of each background task (wakeups.ts), read at
 * scrape time. Which task wakes an idle pod, and how often, is the first question when its idle
 * CPU grows (issue #29).
 */
import { Counter, type Registry } from 'prom-client';
import { wakeupCounts } from './wakeups.js';

export function registerWakeupMetric(registry: Registry): void {
  new Counter({
    name: 'background_wakeups_total',
    help: 'Times each background task (sweeper, poller, keeper) woke this process.',
    labelNames: ['task'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [task, count] of wakeupCounts()) this.inc({ task }, count);
    },
  });
}
