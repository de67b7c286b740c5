import type { DependencyMetrics } from '../metrics/dependency-metrics.js';
import { MemorySharedState } from './memory-shared-state.js';
import { ObservedSharedState } from './observed-shared-state.js';
import { RedisSharedState } from './redis-shared-state.js';
import type { SharedState, SharedStateLogger } from './shared-state.js';

export interface OpenSharedStateOptions {
  /** REDIS_URL; unset means one process with in-memory state. */
  redisUrl?: string | undefined;
  /** REDIS_CLUSTER: REDIS_URL is a seed node of a Redis Cluster. */
  redisCluster?: boolean;
  /** REDIS_KEY_PREFIX, applied to every key and channel. */
  keyPrefix: string;
  logger: SharedStateLogger;
  /** When given, Redis commands are measured (and traced): observed-shared-state.ts. */
  metrics?: DependencyMetrics;
}

/**
 * Opens the shared state this process runs with. With Redis it resolves once connected,
 * or once the first attempt has failed (then `ping()` fails until Redis is reachable).
 */
export async function openSharedState(options: OpenSharedStateOptions): Promise<SharedState> {
  const { redisUrl, redisCluster = false, keyPrefix, logger, metrics } = options;
  if (redisUrl === undefined || redisUrl === '') {
    logger.info({ keyPrefix }, 'shared state: in-process (REDIS_URL unset; one process only)');
    return new MemorySharedState({ keyPrefix, logger });
  }
  logger.info(
    { keyPrefix, redis: redactPassword(redisUrl), cluster: redisCluster },
    redisCluster ? 'shared state: Redis Cluster' : 'shared state: Redis',
  );
  const redis = await RedisSharedState.connect({
    url: redisUrl,
    cluster: redisCluster,
    keyPrefix,
    logger,
  });
  return metrics ? new ObservedSharedState(redis, metrics) : redis;
}

function redactPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = 'redacted';
  return parsed.toString();
}
