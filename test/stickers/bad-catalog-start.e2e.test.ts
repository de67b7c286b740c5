/**
 * A bad sticker catalog stops the service at start (a real child process), with a message that
 * names the pack and the problem, rather than serving a catalog with holes.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildService } from '../support/child-service.js';

const catalog = mkdtempSync(join(tmpdir(), 'bad-stickers-'));
const dataDir = mkdtempSync(join(tmpdir(), 'bad-stickers-data-'));
afterAll(() =>
  [catalog, dataDir].forEach((directory) => rmSync(directory, { recursive: true, force: true })),
);

it('refuses to start with a pack whose manifest names a missing image', async () => {
  mkdirSync(join(catalog, 'broken'));
  writeFileSync(
    join(catalog, 'broken', 'pack.json'),
    JSON.stringify({
      title: 'Broken',
      stickers: [{ name: 'gone', emoji: '👻', file: 'gone.png' }],
    }),
  );
  await expect(startChildService({ STICKERS_DIR: catalog }, { dataDir })).rejects.toThrow(
    /Sticker catalog pack "broken" sticker #1: image gone.png does not exist/,
  );
});
