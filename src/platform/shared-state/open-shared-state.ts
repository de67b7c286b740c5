import { MemorySharedState } from './memory-shared-state.js';
import { RedisSharedState } from './redis-shared-state.js';
import type { SharedState, SharedStateLogger } from './shared-state.js';

export interface OpenSharedStateOptions {
  /** REDIS_URL; unset means one process with in-memory state. */
  redisUrl?: string | undefined;
  /** REDIS_KEY_PREFIX, applied to every key and channel. */
  keyPrefix: string;
  logger: SharedStateLogger;
}

/**
 * Opens the shared state this process runs with. With Redis it resolves once connected,
 * or once the first attempt has failed (then `ping()` fails until Redis is reachable).
 */
export async function openSharedState(options: OpenSharedStateOptions): Promise<SharedState> {
  const { redisUrl, keyPrefix, logger } = options;
  if (redisUrl === undefined || redisUrl === '') {
    logger.info({ keyPrefix }, 'shared state: in-process (REDIS_URL unset; one process only)');
    return new MemorySharedState({ keyPrefix, logger });
  }
  logger.info({ keyPrefix, redis: redactPassword(redisUrl) }, 'shared state: Redis');
  return RedisSharedState.connect({ url: redisUrl, keyPrefix, logger });
}

function redactPassword(url: string): string {
  const parsed = new URL(url);
  if (parsed.password !== '') parsed.password = 'redacted';
  return parsed.toString();
}
