/**
 * Prometheus metrics shared by every transport. One registry per process; the names follow the
 * Prometheus conventions (`_total` counters, `_seconds` histograms).
 */
import { Counter, Registry, collectDefaultMetrics } from 'prom-client';
import { createRealtimeMetrics } from '../../realtime/realtime-metrics.js';
import type { RealtimeMetrics } from '../../realtime/realtime-metrics.js';
import { RequestMetrics } from './request-metrics.js';

export interface Metrics {
  readonly registry: Registry;
  /** `http_requests_total` and `http_request_duration_seconds`. */
  readonly http: RequestMetrics<'method' | 'route' | 'status'>;
  /** `rpc_requests_total` and `rpc_duration_seconds`. */
  readonly rpc: RequestMetrics<'service' | 'method' | 'code' | 'transport'>;
  readonly frontendErrors: Counter<'environment' | 'error_type'>;
  /** Requests refused by a token bucket, by scope (ip, user, endpoint, auth) and RPC. */
  readonly rateLimited: Counter<'scope' | 'rpc'>;
  /** Every limiter decision by scope and outcome; failed_open/failed_closed reveal a shared-state outage. */
  readonly rateLimitDecisions: Counter<'scope' | 'outcome'>;
  /** WebSocket connections, deliveries, fan-out latency and slow consumers. */
  readonly realtime: RealtimeMetrics;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    http: new RequestMetrics(
      {
        counterName: 'http_requests_total',
        counterHelp: 'HTTP requests by method, route template and status.',
        histogramName: 'http_request_duration_seconds',
        histogramHelp: 'HTTP request latency by method, route template and status.',
        labelNames: ['method', 'route', 'status'],
        buckets: LATENCY_BUCKETS,
      },
      registry,
    ),
    rpc: new RequestMetrics(
      {
        counterName: 'rpc_requests_total',
        counterHelp: 'RPCs by service, method, result code and transport (rest, grpc, grpc-web, connect).',
        histogramName: 'rpc_duration_seconds',
        histogramHelp: 'RPC latency by service, method, result code and transport.',
        labelNames: ['service', 'method', 'code', 'transport'],
        buckets: LATENCY_BUCKETS,
      },
      registry,
    ),
    frontendErrors: new Counter({
      name: 'frontend_errors_total',
      help: 'Errors reported by frontends through POST /errors.',
      labelNames: ['environment', 'error_type'],
      registers: [registry],
    }),
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
    realtime: createRealtimeMetrics(registry),
  };
}
