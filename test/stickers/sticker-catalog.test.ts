/**
 * The catalog check at start: the shipped pack loads; each kind of bad pack stops the load with
 * a message naming the pack and the problem.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DEFAULT_STICKERS_DIR,
  loadStickerCatalog,
} from '../../src/stickers/load-sticker-catalog.js';
import type { Json } from '../support/json.js';

const directories: string[] = [];
afterAll(() =>
  directories.forEach((directory) => rmSync(directory, { recursive: true, force: true })),
);

/** A copy of the shipped catalog with the basics manifest changed by `edit`. */
function catalogWith(edit: (manifest: Json, packDir: string) => void, packId = 'basics'): string {
  const directory = mkdtempSync(join(tmpdir(), 'stickers-'));
  directories.push(directory);
  cpSync(join(DEFAULT_STICKERS_DIR, 'basics'), join(directory, packId), { recursive: true });
  const manifestPath = join(directory, packId, 'pack.json');
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  edit(manifest, join(directory, packId));
  writeFileSync(manifestPath, JSON.stringify(manifest));
  return directory;
}

it('loads the shipped pack', async () => {
  const catalog = await loadStickerCatalog(DEFAULT_STICKERS_DIR);
  expect(catalog.packs.map((pack) => [pack.id, pack.cover.id, pack.stickers.length])).toEqual([
    ['basics', 'basics.smile', 3],
  ]);
  expect(catalog.sticker('basics.heart')?.image.contentType).toBe('image/png');
});

it.each([
  [
    'a missing title',
    (manifest: Json) => delete manifest.title,
    /pack "basics": title must be a string/,
  ],
  ['no stickers', (manifest: Json) => (manifest.stickers = []), /stickers must list 1 to 200/],
  [
    'a missing image',
    (manifest: Json) => (manifest.stickers[0].file = 'gone.png'),
    /sticker #1: image gone.png does not exist/,
  ],
  [
    'a path outside the pack',
    (manifest: Json) => (manifest.stickers[0].file = '../x.png'),
    /file must name a file of the pack folder/,
  ],
  [
    'a bad sticker name',
    (manifest: Json) => (manifest.stickers[0].name = 'Smile!'),
    /name must be 1 to 31/,
  ],
  [
    'a duplicate name',
    (manifest: Json) => (manifest.stickers[1].name = 'smile'),
    /two stickers have the same name/,
  ],
  [
    'an unknown cover',
    (manifest: Json) => (manifest.cover = 'nope'),
    /cover "nope" is not one of its stickers/,
  ],
  [
    'text instead of an emoji',
    (manifest: Json) => (manifest.stickers[0].emoji = 'smile'),
    /emoji must be one emoji/,
  ],
  [
    'an image that is not one',
    (manifest: Json, packDir: string) => writeFileSync(join(packDir, 'smile.png'), 'hello'),
    /is neither a PNG nor a WebP/,
  ],
])('refuses %s', async (_, edit, message) => {
  await expect(loadStickerCatalog(catalogWith(edit))).rejects.toThrow(message);
});

it('refuses a bad pack id, a manifest that is not JSON, and an empty or missing directory', async () => {
  await expect(loadStickerCatalog(catalogWith(() => undefined, 'Bad Pack'))).rejects.toThrow(
    /pack "Bad Pack": the folder name/,
  );
  const broken = catalogWith(() => undefined);
  writeFileSync(join(broken, 'basics', 'pack.json'), '{');
  await expect(loadStickerCatalog(broken)).rejects.toThrow(/pack.json is missing or not JSON/);
  const empty = mkdtempSync(join(tmpdir(), 'stickers-'));
  directories.push(empty);
  await expect(loadStickerCatalog(empty)).rejects.toThrow(/holds no pack folder/);
  await expect(loadStickerCatalog(join(empty, 'missing'))).rejects.toThrow(/cannot be read/);
});
