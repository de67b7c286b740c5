/** The abuse controls' Prometheus metrics, registered by this area on the process's registry. */
import { Counter } from 'prom-client';
import type { Registry } from 'prom-client';

export interface LimitMetrics {
  /** Requests refused by a token bucket, by scope (ip, user, endpoint, auth) and RPC. */
  readonly rateLimited: Counter<'scope' | 'rpc'>;
  /** Every limiter decision by scope and outcome; failed_open/failed_closed reveal a shared-state outage. */
  readonly rateLimitDecisions: Counter<'scope' | 'outcome'>;
}

export function createLimitMetrics(registry: Registry): LimitMetrics {
  return {
    rateLimited: new Counter({
      name: 'rate_limited_requests_total',
      help: 'Requests refused by a rate limit, by scope and RPC.',
      labelNames: ['scope', 'rpc'],
      registers: [registry],
    }),
    rateLimitDecisions: new Counter({
      name: 'rate_limit_decisions_total',
      help: 'Rate-limit decisions by scope and outcome (allowed, limited, failed_open, failed_closed).',
      labelNames: ['scope', 'outcome'],
      registers: [registry],
    }),
  };
}
