/**
 * Reading and checking the sticker catalog directory at start. Layout: one folder per pack,
 * named by the pack id, holding `pack.json`
 *
 *   {"title": "Basics", "author": "…", "animated": false, "cover": "smile",
 *    "stickers": [{"name": "smile", "emoji": "😀", "file": "smile.png"}, …]}
 *
 * and the images it names (PNG or WebP, at most 512 x 512 pixels and 512 KiB). Packs are in
 * the order of their ids. Anything wrong stops the start with a message naming the pack and
 * what is wrong, rather than serving a catalog with holes.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { StickerCatalog, stickerImage } from './sticker-catalog.js';
import type { CatalogPack, CatalogSticker, StickerImage } from './sticker-catalog.js';

/** The default pack shipped in the repository (`assets/stickers`, next to `src/` and `dist/`). */
export const DEFAULT_STICKERS_DIR = fileURLToPath(
  new URL('../../assets/stickers', import.meta.url),
);

const PACK_ID = /^[a-z0-9_-]{1,32}$/;
const STICKER_NAME = /^[a-z0-9_-]{1,31}$/;
const MAX_STICKERS = 200;
const MAX_TEXT = 64;
const MAX_IMAGE_BYTES = 512 * 1024;
const MAX_IMAGE_SIDE = 512;

export class StickerCatalogError extends Error {
  constructor(where: string, problem: string) {
    super(`Sticker catalog ${where}: ${problem}`);
    this.name = 'StickerCatalogError';
  }
}

export async function loadStickerCatalog(directory: string): Promise<StickerCatalog> {
  const entries = await readdir(directory, { withFileTypes: true }).catch((error: Error) => {
    throw new StickerCatalogError(directory, `cannot be read (${error.message})`);
  });
  const packIds = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();
  if (packIds.length === 0) throw new StickerCatalogError(directory, 'holds no pack folder');
  const packs: CatalogPack[] = [];
  for (const id of packIds) packs.push(await loadPack(join(directory, id), id));
  return new StickerCatalog(packs);
}

async function loadPack(folder: string, id: string): Promise<CatalogPack> {
  const where = `pack "${id}"`;
  if (!PACK_ID.test(id))
    throw new StickerCatalogError(
      where,
      'the folder name (pack id) must be 1 to 32 characters from a-z, 0-9, _ and -',
    );
  let manifest: unknown;
  try {
    manifest = JSON.parse(await readFile(join(folder, 'pack.json'), 'utf8'));
  } catch (error) {
    throw new StickerCatalogError(
      where,
      `pack.json is missing or not JSON (${(error as Error).message})`,
    );
  }
  if (!isRecord(manifest)) throw new StickerCatalogError(where, 'pack.json must be an object');
  const title = text(manifest.title, where, 'title', 1);
  const author = manifest.author === undefined ? '' : text(manifest.author, where, 'author', 0);
  if (manifest.animated !== undefined && typeof manifest.animated !== 'boolean')
    throw new StickerCatalogError(where, 'animated must be true or false');
  const list = manifest.stickers;
  if (!Array.isArray(list) || list.length === 0 || list.length > MAX_STICKERS)
    throw new StickerCatalogError(where, `stickers must list 1 to ${MAX_STICKERS} stickers`);
  const stickers: CatalogSticker[] = [];
  for (const [index, entry] of list.entries())
    stickers.push(await loadSticker(folder, id, entry, `${where} sticker #${index + 1}`));
  const names = new Set(stickers.map((sticker) => sticker.id));
  if (names.size !== stickers.length)
    throw new StickerCatalogError(where, 'two stickers have the same name');
  const coverId =
    manifest.cover === undefined
      ? stickers[0]!.id
      : `${id}.${text(manifest.cover, where, 'cover', 1)}`;
  const cover = stickers.find((sticker) => sticker.id === coverId);
  if (!cover)
    throw new StickerCatalogError(
      where,
      `cover "${String(manifest.cover)}" is not one of its stickers`,
    );
  return { id, title, author, animated: manifest.animated === true, cover, stickers };
}

async function loadSticker(
  folder: string,
  packId: string,
  entry: unknown,
  where: string,
): Promise<CatalogSticker> {
  if (!isRecord(entry)) throw new StickerCatalogError(where, 'must be an object');
  const name = text(entry.name, where, 'name', 1);
  if (!STICKER_NAME.test(name))
    throw new StickerCatalogError(where, 'name must be 1 to 31 characters from a-z, 0-9, _ and -');
  const emoji = text(entry.emoji, where, 'emoji', 1);
  if (!/^\p{Extended_Pictographic}/u.test(emoji) || emoji.length > 16)
    throw new StickerCatalogError(where, 'emoji must be one emoji');
  const file = text(entry.file, where, 'file', 1);
  if (file.includes('/') || file.includes('\\') || file.startsWith('.'))
    throw new StickerCatalogError(where, 'file must name a file of the pack folder');
  const path = join(folder, file);
  const size = await stat(path).then(
    (stats) => (stats.isFile() ? stats.size : -1),
    () => -1,
  );
  if (size < 0) throw new StickerCatalogError(where, `image ${file} does not exist`);
  if (size > MAX_IMAGE_BYTES)
    throw new StickerCatalogError(where, `image ${file} is larger than ${MAX_IMAGE_BYTES} bytes`);
  return {
    id: `${packId}.${name}`,
    packId,
    emoji,
    image: checkedImage(new Uint8Array(await readFile(path)), `${where} (${file})`),
  };
}

/** A PNG or WebP no larger than 512 x 512, by its own header (the file name is not trusted). */
function checkedImage(bytes: Uint8Array, where: string): StickerImage {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const dimensions = pngDimensions(buffer) ?? webpDimensions(buffer);
  if (!dimensions) throw new StickerCatalogError(where, 'is neither a PNG nor a WebP image');
  const [width, height, contentType] = dimensions;
  if (width < 1 || height < 1 || width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE) {
    throw new StickerCatalogError(
      where,
      `is ${width} x ${height} pixels; at most ${MAX_IMAGE_SIDE} x ${MAX_IMAGE_SIDE}`,
    );
  }
  return stickerImage(contentType, bytes);
}

type Dimensions = [number, number, StickerImage['contentType']];

function pngDimensions(bytes: Buffer): Dimensions | undefined {
  const signature = '89504e470d0a1a0a';
  if (
    bytes.length < 24 ||
    bytes.subarray(0, 8).toString('hex') !== signature ||
    bytes.subarray(12, 16).toString('ascii') !== 'IHDR'
  )
    return undefined;
  return [bytes.readUInt32BE(16), bytes.readUInt32BE(20), 'image/png'];
}

/** The three WebP encodings: lossy (VP8), lossless (VP8L) and extended (VP8X, animated). */
function webpDimensions(bytes: Buffer): Dimensions | undefined {
  if (
    bytes.length < 30 ||
    bytes.subarray(0, 4).toString('ascii') !== 'RIFF' ||
    bytes.subarray(8, 12).toString('ascii') !== 'WEBP'
  )
    return undefined;
  const chunk = bytes.subarray(12, 16).toString('ascii');
  if (chunk === 'VP8 ')
    return [bytes.readUInt16LE(26) & 0x3fff, bytes.readUInt16LE(28) & 0x3fff, 'image/webp'];
  if (chunk === 'VP8L') {
    const bits = bytes.readUInt32LE(21);
    return [(bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1, 'image/webp'];
  }
  if (chunk === 'VP8X')
    return [bytes.readUIntLE(24, 3) + 1, bytes.readUIntLE(27, 3) + 1, 'image/webp'];
  return undefined;
}

function text(value: unknown, where: string, field: string, min: number): string {
  if (typeof value !== 'string' || value.length < min || value.length > MAX_TEXT) {
    throw new StickerCatalogError(
      where,
      `${field} must be a string of ${min} to ${MAX_TEXT} characters`,
    );
  }
  return value;
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
