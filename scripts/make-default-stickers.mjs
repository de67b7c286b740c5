// Writes the default sticker pack shipped in assets/stickers/basics: small solid-colour PNGs
// drawn here (no download), and the pack's manifest. Run again only to change the pack.
import { mkdirSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 64;
const packDir = new URL('../assets/stickers/basics/', import.meta.url);
const stickers = [
  { name: 'smile', emoji: '😀', rgb: [250, 200, 40] },
  { name: 'heart', emoji: '❤️', rgb: [220, 40, 60] },
  { name: 'thumbs-up', emoji: '👍', rgb: [60, 140, 230] },
];

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (bytes) => {
  let c = 0xffffffff;
  for (const byte of bytes) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  body.copy(out, 4);
  out.writeUInt32BE(crc32(body), 8 + data.length);
  return out;
};

/** A SIZE x SIZE RGBA image: a filled circle of the colour on a transparent background. */
function png([r, g, b]) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(SIZE, 0);
  header.writeUInt32BE(SIZE, 4);
  header.set([8, 6, 0, 0, 0], 8);
  const rows = [];
  for (let y = 0; y < SIZE; y++) {
    const row = [0];
    for (let x = 0; x < SIZE; x++) {
      const inside = (x - SIZE / 2 + 0.5) ** 2 + (y - SIZE / 2 + 0.5) ** 2 <= (SIZE / 2 - 2) ** 2;
      row.push(r, g, b, inside ? 255 : 0);
    }
    rows.push(Buffer.from(row));
  }
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  return Buffer.concat([
    signature,
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

mkdirSync(packDir, { recursive: true });
for (const sticker of stickers)
  writeFileSync(new URL(`${sticker.name}.png`, packDir), png(sticker.rgb));
const manifest = {
  title: 'Basics',
  author: 'Messaging service',
  animated: false,
  cover: 'smile',
  stickers: stickers.map(({ name, emoji }) => ({ name, emoji, file: `${name}.png` })),
};
writeFileSync(new URL('pack.json', packDir), `${JSON.stringify(manifest, null, 2)}\n`);
