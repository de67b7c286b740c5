/**
 * Latency and errors of the two dependencies every request leans on: the store (MongoDB or the
 * embedded engine, with its journal's fsync) and Redis. Labels are the port's operation names
 * (a dozen each), never collections, keys or scripts. Registered in every role, so every pod
 * lists the same series; ws pods have no store and leave those at zero.
 */
import { Counter, Histogram } from 'prom-client';
import type { Registry } from 'prom-client';

export type ErrorReason = 'unavailable' | 'failed';

export interface DependencyMetrics {
  /** `store_operation_duration_seconds{operation}`. */
  readonly storeDuration: Histogram<'operation'>;
  /** `store_operation_errors_total{operation, reason}`; a duplicate key is an answer, not one. */
  readonly storeErrors: Counter<'operation' | 'reason'>;
  /** `store_journal_fsync_seconds`: the embedded engine's group commit to disk. */
  readonly journalFsync: Histogram;
  /** `redis_command_duration_seconds{command}`. */
  readonly redisDuration: Histogram<'command'>;
  /** `redis_command_errors_total{command, reason}`. */
  readonly redisErrors: Counter<'command' | 'reason'>;
}

const BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export function createDependencyMetrics(registry: Registry): DependencyMetrics {
  const registers = [registry];
  return {
    storeDuration: new Histogram({
      name: 'store_operation_duration_seconds',
      help: 'Store operations (MongoDB or the embedded engine) by operation (findOne, insertOne, …).',
      labelNames: ['operation'],
      buckets: BUCKETS,
      registers,
    }),
    storeErrors: new Counter({
      name: 'store_operation_errors_total',
      help: 'Store operations that failed, by operation and reason (unavailable: no server, a dropped connection; failed: anything else but a duplicate key).',
      labelNames: ['operation', 'reason'],
      registers,
    }),
    journalFsync: new Histogram({
      name: 'store_journal_fsync_seconds',
      help: "The embedded store's journal writes to disk (one fdatasync per group commit).",
      buckets: BUCKETS,
      registers,
    }),
    redisDuration: new Histogram({
      name: 'redis_command_duration_seconds',
      help: 'Redis commands by command (get, set, script, publish, …), from call to answer.',
      labelNames: ['command'],
      buckets: BUCKETS,
      registers,
    }),
    redisErrors: new Counter({
      name: 'redis_command_errors_total',
      help: 'Redis commands that failed, by command and reason (unavailable: Redis away or too slow; failed: an error reply).',
      labelNames: ['command', 'reason'],
      registers,
    }),
  };
}
