/**
 * Reads what a test service stored, through the store itself. While the service runs, its
 * embedded store holds the DATA_DIR lock (and TestService exposes only ports), so the reading
 * happens after the service has shut down: the service is stopped (keeping its data), DATA_DIR
 * is reopened with the same engine, read, closed and removed. Use it as the last step of a
 * file; the file's later `service.stop()` has nothing left to do.
 */
import { rmSync } from 'node:fs';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import type { DocumentStore } from '../../src/platform/store/document-store.js';
import { silentLogger } from './silent-logger.js';
import type { TestService } from './start-service.js';

export async function stopAndReadStore<T>(
  service: TestService,
  read: (store: DocumentStore) => Promise<T>,
): Promise<T> {
  await service.stop({ keepData: true });
  const store = await EmbeddedDocumentStore.open({
    dataDir: service.dataDir,
    logger: silentLogger,
  });
  try {
    return await read(store);
  } finally {
    await store.close();
    rmSync(service.dataDir, { recursive: true, force: true });
  }
}
