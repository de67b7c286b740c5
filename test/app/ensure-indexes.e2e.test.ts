/**
 * The `ensure-indexes` command (the Helm pre-upgrade Job) as a real child process: it builds
 * every declared index, a second run changes nothing, and an index whose definition changed
 * stops it with exit code 1 and a message that names the index and says what to do, without
 * touching the existing index. (Against the embedded engine here; with MONGODB_URL the same
 * command talks to MongoDB, whose codes 85/86 map to the same error.)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { storeIndexes } from '../../src/app/store-indexes.js';
import { IndexConflictError } from '../../src/platform/store/document-store.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { builtModule } from '../support/built-service.js';
import { silentLogger } from '../support/silent-logger.js';

const run = (dataDir: string) =>
  promisify(execFile)(process.execPath, [builtModule('cli/ensure-indexes.js')], {
    env: { PATH: process.env.PATH, DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
  }).then(
    (result) => ({ code: 0, ...result }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'ensure-indexes-'));
});
afterEach(() => rm(dataDir, { recursive: true, force: true }));

/** The names of the declared indexes that exist in `dir`: a different definition under each name conflicts. */
async function existingIndexNames(dir: string): Promise<string[]> {
  const store = await EmbeddedDocumentStore.open({ dataDir: dir, logger: silentLogger });
  try {
    const names: string[] = [];
    for (const spec of storeIndexes) {
      const probe = store.ensureIndexes([
        { collection: spec.collection, name: spec.name, key: { probeField: 1 } },
      ]);
      if (
        await probe.then(
          () => false,
          (err: unknown) => err instanceof IndexConflictError,
        )
      )
        names.push(spec.name);
    }
    return names;
  } finally {
    await store.close();
  }
}

test('builds every declared index, and a second run is a no-op', async () => {
  expect(await run(dataDir)).toMatchObject({ code: 0, stderr: '' });
  expect(await run(dataDir)).toMatchObject({ code: 0, stderr: '' });
  expect(await existingIndexNames(dataDir)).toEqual(storeIndexes.map((spec) => spec.name));
});

test('an index declared differently from the existing one stops it with a clear message', async () => {
  const changed = storeIndexes.find((spec) => spec.name === 'idempotency_key')!;
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await store.ensureIndexes([
    { ...changed, partialFilterExpression: { clientMessageId: { $exists: true } } },
  ]);
  await store.close();

  const result = await run(dataDir);
  expect(result.code).toBe(1);
  expect(result.stderr).toContain(
    'index idempotency_key on messages conflicts with an existing index (IndexKeySpecsConflict)',
  );
  expect(result.stderr).toContain('declare the changed index under a new name');
});
