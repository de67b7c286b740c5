/**
 * Operator command: `npm run ensure-indexes`. Creates every index the service declares in the
 * store it is configured with (MONGODB_URL, or DATA_DIR) and exits: 0 when all exist as
 * declared, 1 with the reason otherwise (an index whose definition changed names itself and
 * says how to roll the change out). The Helm chart runs it as a pre-install/pre-upgrade Job,
 * so index builds happen once, before any pod of the new version starts, and a conflicting
 * definition stops the upgrade while the old pods keep serving (docs/deploy.md, "Indexes").
 * Then it upgrades records stored by earlier versions (`upgradeStoredRecords`, idempotent).
 */
import { storeIndexes, upgradeStoredRecords } from '../app/store-indexes.js';
import { loadConfig } from '../platform/config/load-config.js';
import { createLogger } from '../platform/logging/logger.js';
import { openStore } from '../platform/store/open-store.js';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.process.logLevel);
  const store = await openStore({
    mongodbUrl: config.store.mongodbUrl,
    mongodbAllowStandalone: config.store.mongodbAllowStandalone,
    dataDir: config.store.dataDir,
    logger,
  });
  try {
    const started = Date.now();
    await store.ensureIndexes(storeIndexes);
    logger.info({ indexes: storeIndexes.length, ms: Date.now() - started }, 'indexes ensured');
    const upgraded = await upgradeStoredRecords(store);
    logger.info({ upgraded }, 'stored records upgraded');
  } finally {
    await store.close();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`ensure-indexes failed: ${(error as Error).message}\n`);
    process.exit(1);
  },
);
