import type { DocumentStore } from './document-store.js';
import { EmbeddedDocumentStore } from './embedded/embedded-store.js';
import { MongoDocumentStore } from './mongo/mongo-store.js';
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
}

/** MongoDB when a URL is configured, otherwise the embedded engine over DATA_DIR. */
export async function openStore(options: OpenStoreOptions): Promise<DocumentStore> {
  const { mongodbUrl, mongodbAllowStandalone, logger, ...embedded } = options;
  if (mongodbUrl) {
    const store = await MongoDocumentStore.connect(mongodbUrl, {
      allowStandalone: mongodbAllowStandalone ?? false,
    });
    logger.info({ store: 'mongodb' }, 'store opened');
    return store;
  }
  return EmbeddedDocumentStore.open({ ...embedded, logger });
}
