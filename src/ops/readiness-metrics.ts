/**
 * Readiness as metrics, so that an alert sees what the probes see: `service_ready` (1 ready, 0
 * not: a dependency down, or draining) and `service_dependency_up{dependency}` (store,
 * shared_state), evaluated when scraped. Prometheus scrapes not-ready pods too (their endpoints
 * are listed as not ready), so a pod stuck out of its Service still reports why.
 */
import { Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { Readiness, ReadinessReport } from './readiness.js';

export function registerReadinessMetrics(registry: Registry, readiness: Readiness): void {
  // Both gauges are collected at once by a scrape: they share one round of checks.
  let current: Promise<ReadinessReport> | undefined;
  const report = () => {
    current ??= readiness.report().finally(() => {
      current = undefined;
    });
    return current;
  };
  return void [
    new Gauge({
      name: 'service_dependency_up',
      help: 'Whether a dependency of this process answered its readiness check (1) or not (0), by dependency (store, shared_state).',
      labelNames: ['dependency'],
      registers: [registry],
      async collect() {
        for (const [dependency, check] of Object.entries((await report()).checks))
          this.set({ dependency }, check.status === 'up' ? 1 : 0);
      },
    }),
    new Gauge({
      name: 'service_ready',
      help: 'Whether this process is ready to serve (1) or not (0: a dependency down, or draining), as /health/ready answers.',
      registers: [registry],
      async collect() {
        this.set((await report()).ready ? 1 : 0);
      },
    }),
  ];
}
