/**
 * Prometheus metrics shared by every transport. One registry per process; the names follow the
 * Prometheus conventions (`_total` counters, `_seconds` histograms). Areas register their own
 * metrics on `registry` (realtime-metrics.ts, limit-metrics.ts, frontend-errors.ts): this
 * floor knows none of them.
 */
import { Registry, collectDefaultMetrics } from 'prom-client';
import { createDependencyMetrics } from './dependency-metrics.js';
import type { DependencyMetrics } from './dependency-metrics.js';
import { RequestMetrics } from './request-metrics.js';
import { registerWakeupMetric } from '../scheduling/wakeup-metric.js';

export interface Metrics {
  readonly registry: Registry;
  /** `http_requests_total` and `http_request_duration_seconds`. */
  readonly http: RequestMetrics<'method' | 'route' | 'status'>;
  /** `rpc_requests_total` and `rpc_duration_seconds`. */
  readonly rpc: RequestMetrics<'service' | 'method' | 'code' | 'transport'>;
  /** The store's and Redis's latency and errors (dependency-metrics.ts). */
  readonly dependencies: DependencyMetrics;
}

/**
 * The event-loop delay monitor's timer period (prom-client's default 10 ms). Its wakeups were
 * the largest part of an idle process's CPU: 0.38 % of a core at 10 ms, 0.22 % at 20 ms, 0.09 %
 * at 50 ms (a bare process with the default metrics, 20 s each, load 25). A block of the loop
 * is measured up to this much short, which leaves the 50 ms stalls the service is held to
 * visible (bench/tail.mjs reads `nodejs_eventloop_lag_max_seconds`).
 */
const LOOP_DELAY_RESOLUTION_MS = 20;

const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({
    register: registry,
    eventLoopMonitoringPrecision: LOOP_DELAY_RESOLUTION_MS,
  });
  registerWakeupMetric(registry);
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
        counterHelp:
          'RPCs by service, method, result code and transport (rest, grpc, grpc-web, connect).',
        histogramName: 'rpc_duration_seconds',
        histogramHelp: 'RPC latency by service, method, result code and transport.',
        labelNames: ['service', 'method', 'code', 'transport'],
        buckets: LATENCY_BUCKETS,
      },
      registry,
    ),
    dependencies: createDependencyMetrics(registry),
  };
}
