/**
 * Which implementation serves each API service. A service (or method) missing here is still
 * routed, and answers NOT_IMPLEMENTED (HTTP 501) until its issue lands.
 */
import type { PartialServiceImpl } from '../platform/rpc/rpc-pipeline.js';
import type { Metrics } from '../platform/metrics/metrics.js';
import { SystemService } from '../gen/service/v1/system_pb.js';
import { createSystemService } from '../system/system-service.js';

export interface ServiceDependencies {
  readonly metrics: Metrics;
}

export function apiImplementations(deps: ServiceDependencies): ReadonlyMap<string, PartialServiceImpl> {
  return new Map<string, PartialServiceImpl>([[SystemService.typeName, createSystemService(deps.metrics)]]);
}
