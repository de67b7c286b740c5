import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedDocumentStore } from '../../../../src/platform/store/embedded/embedded-store.js';
import { silentLogger } from '../../../support/silent-logger.js';

let dataDir: string;
beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-lock-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

test('a second opener of the same DATA_DIR is refused until the first closes', async () => {
  const first = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await expect(EmbeddedDocumentStore.open({ dataDir, logger: silentLogger })).rejects.toThrow(
    /in use by process/,
  );
  await first.close();
  const second = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await second.close();
});

test('a lock left by a process that no longer runs is taken over', async () => {
  const dead = spawnSync(process.execPath, [
    '-e',
    'process.stdout.write(String(process.pid))',
  ]).stdout.toString();
  await writeFile(join(dataDir, 'LOCK'), dead);
  const store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  expect(await readFile(join(dataDir, 'LOCK'), 'utf8')).toBe(String(process.pid));
  await store.close();
});

test('a LOCK held by another running process refuses the open', async () => {
  const holder = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    stdio: 'ignore',
  });
  try {
    await writeFile(join(dataDir, 'LOCK'), String(holder.pid));
    await expect(EmbeddedDocumentStore.open({ dataDir, logger: silentLogger })).rejects.toThrow(
      `in use by process ${holder.pid}`,
    );
  } finally {
    holder.kill('SIGKILL');
  }
});
