import type { DocumentStore } from './document-store.js';
import { EmbeddedDocumentStore } from './embedded/embedded-store.js';
import { MongoDocumentStore } from './mongo/mongo-store.js';
import { ObservedStore } from './observed-store.js';
import type { DependencyMetrics } from '../metrics/dependency-metrics.js';
import type { StoreLogger } from './store-logger.js';

export interface OpenStoreOptions {
  /** MONGODB_URL: when set, MongoDB is the store and dataDir is not used. */
  mongodbUrl?: string | undefined;
  /** MONGODB_ALLOW_STANDALONE. */
  mongodbAllowStandalone?: boolean;
  /** DATA_DIR of the embedded engine. */
  dataDir: string;
  logger: StoreLogger;
  /** Embedded engine only: journal size that triggers compaction (default 64 MiB). */
  compactionThresholdBytes?: number;
  /** Embedded engine only: TTL sweep interval (default 1 s). */
  ttlSweepIntervalMs?: number;
  /** When given, the store is measured (and traced) at its port: observed-store.ts. */
  metrics?: DependencyMetrics;
}

/** MongoDB when a URL is configured, otherwise the embedded engine over DATA_DIR. */
export async function openStore(options: OpenStoreOptions): Promise<DocumentStore> {
  const { metrics } = options;
  const store = await openEngine(options);
  return metrics ? new ObservedStore(store, metrics) : store;
}

async function openEngine(options: OpenStoreOptions): Promise<DocumentStore> {
  const { mongodbUrl, mongodbAllowStandalone, logger, metrics, ...embedded } = options;
  if (mongodbUrl) {
    const store = await MongoDocumentStore.connect(mongodbUrl, {
      allowStandalone: mongodbAllowStandalone ?? false,
    });
    logger.info({ store: 'mongodb' }, 'store opened');
    return store;
  }
  const onFsync = metrics && ((seconds: number) => metrics.journalFsync.observe(seconds));
  return EmbeddedDocumentStore.open({ ...embedded, logger, onFsync });
}
