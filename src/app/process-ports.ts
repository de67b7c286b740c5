/**
 * The ports a process opens first, whatever its role: tracing, the metrics registry, the outage log,
 * shared state, and (for the roles that serve the API) the store; with the readiness report
 * over them.
 */
import type { Config } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import { OutageLog } from '../platform/logging/outage-log.js';
import { createMetrics } from '../platform/metrics/metrics.js';
import type { Metrics } from '../platform/metrics/metrics.js';
import { openSharedState } from '../platform/shared-state/open-shared-state.js';
import type { SharedState } from '../platform/shared-state/shared-state.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import { openStore } from '../platform/store/open-store.js';
import { startTracing } from '../platform/tracing/start-tracing.js';
import type { Tracing } from '../platform/tracing/start-tracing.js';
import { Readiness } from '../ops/readiness.js';
import { registerReadinessMetrics } from '../ops/readiness-metrics.js';
import type { DependencyCheck } from '../ops/readiness.js';

export interface ProcessPorts {
  readonly logger: Logger;
  readonly metrics: Metrics;
  /** Where background work reports dependency outages (once per interval). */
  readonly outages: OutageLog;
  readonly sharedState: SharedState;
  /** Undefined for the ws role, which has no store. */
  readonly store: DocumentStore | undefined;
  readonly readiness: Readiness;
  /** OpenTelemetry tracing, started first so that every later part is traced (or off). */
  readonly tracing: Tracing;
}

export async function openProcessPorts(config: Config, logger: Logger): Promise<ProcessPorts> {
  const tracing = await startTracing(config.tracing, config.process.role, logger);
  const metrics = createMetrics();
  const outages = new OutageLog(logger);
  const sharedState = await openSharedState({
    redisUrl: config.sharedState.redisUrl,
    redisCluster: config.sharedState.cluster,
    keyPrefix: config.sharedState.keyPrefix,
    logger,
    metrics: metrics.dependencies,
  });
  const store: DocumentStore | undefined =
    config.process.role !== 'ws'
      ? await openStore({
          mongodbUrl: config.store.mongodbUrl,
          mongodbAllowStandalone: config.store.mongodbAllowStandalone,
          dataDir: config.store.dataDir,
          compactionThresholdBytes: config.store.compactionBytes,
          logger,
          metrics: metrics.dependencies,
        })
      : undefined;
  const checks: Record<string, DependencyCheck> = { shared_state: () => sharedState.ping() };
  if (store) checks.store = () => store.ping();
  const readiness = new Readiness(checks);
  registerReadinessMetrics(metrics.registry, readiness);
  return {
    logger,
    metrics,
    outages,
    sharedState,
    store,
    readiness,
    tracing,
  };
}
