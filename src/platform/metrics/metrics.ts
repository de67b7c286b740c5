/**
 * Prometheus metrics shared by every transport. One registry per process; the names follow the
 * Prometheus conventions (`_total` counters, `_seconds` histograms).
 */
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly rpcRequests: Counter<'service' | 'method' | 'code' | 'transport'>;
  readonly rpcDuration: Histogram<'service' | 'method' | 'code' | 'transport'>;
  readonly frontendErrors: Counter<'environment' | 'error_type'>;
}

const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return {
    registry,
    httpRequests: new Counter({
      name: 'http_requests_total',
      help: 'HTTP requests by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    rpcRequests: new Counter({
      name: 'rpc_requests_total',
      help: 'RPCs by service, method, result code and transport (rest, grpc, grpc-web, connect).',
      labelNames: ['service', 'method', 'code', 'transport'],
      registers: [registry],
    }),
    rpcDuration: new Histogram({
      name: 'rpc_duration_seconds',
      help: 'RPC latency by service, method, result code and transport.',
      labelNames: ['service', 'method', 'code', 'transport'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    frontendErrors: new Counter({
      name: 'frontend_errors_total',
      help: 'Errors reported by frontends through POST /errors.',
      labelNames: ['environment', 'error_type'],
      registers: [registry],
    }),
  };
}
