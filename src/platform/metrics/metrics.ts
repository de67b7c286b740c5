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

export interface Metrics {
  readonly registry: Registry;
  /** `http_requests_total` and `http_request_duration_seconds`. */
  readonly http: RequestMetrics<'method' | 'route' | 'status'>;
  /** `rpc_requests_total` and `rpc_duration_seconds`. */
  readonly rpc: RequestMetrics<'service' | 'method' | 'code' | 'transport'>;
  /** The store's and Redis's latency and errors (dependency-metrics.ts). */
  readonly dependencies: DependencyMetrics;
}

const LATENCY_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
];

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
