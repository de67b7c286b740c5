/**
 * What every ioredis connection of the shared state has in common: the fail-fast settings (see
 * the outage notes in shared-state.ts), how its losses are logged, and how it is closed.
 *
 * - `enableOfflineQueue: false`: a command issued while disconnected rejects at once
 *   instead of waiting in a queue for a reconnect that may never come;
 * - `maxRetriesPerRequest: 0`: commands in flight when the connection drops reject at
 *   once and are not replayed after reconnect (a late replay of a `take` or `set` could
 *   apply after its caller was told it failed);
 * - `commandTimeout`: bounds a command on a connection that stopped answering;
 * - `retryStrategy`: reconnect forever, backing off to at most 2 s between attempts.
 */
import type { Cluster, Redis, RedisOptions } from 'ioredis';
import type { SharedStateLogger } from './shared-state.js';

export const CONNECTION_OPTIONS: RedisOptions = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 0,
  commandTimeout: 1000,
  connectTimeout: 2000,
  retryStrategy: (attempt) => Math.min(attempt * 100, 2000),
};

/** One Redis, or the client of a Redis Cluster (which routes each command to its slot's shard). */
export type Connection = Redis | Cluster;

/**
 * Logs transitions only (lost once, restored once) rather than every failed reconnect
 * attempt. 'reconnecting' marks a loss (a deliberate close() never reconnects); the
 * 'error' listener supplies its cause and keeps ioredis from printing unhandled errors.
 * The cause is logged as its message, like every outage (OutageLog): whether a stopping Redis
 * closed the socket cleanly or reset it under a command in flight (ECONNRESET) is a matter of
 * timing, and neither is a bug with a stack worth reading.
 */
export function reportConnectionState(
  connection: Connection,
  role: string,
  logger: SharedStateLogger,
): void {
  let healthy = true;
  let lastError: Error | undefined;
  connection.on('error', (error: Error) => {
    lastError = error;
  });
  connection.on('reconnecting', () => {
    if (!healthy) return;
    healthy = false;
    logger.warn(
      { cause: lastError?.message, role },
      'Redis connection unavailable; shared-state commands fail until it is back',
    );
  });
  connection.on('ready', () => {
    lastError = undefined;
    if (healthy) return;
    healthy = true;
    logger.info({ role }, 'Redis connection restored');
  });
}

/** QUIT lets replies in flight arrive; a connection that is not up is simply dropped. */
export async function closeConnection(connection: Connection): Promise<void> {
  if (connection.status === 'ready') {
    await connection.quit().catch(() => connection.disconnect());
  } else {
    connection.disconnect();
  }
}
