import { randomId } from '../../../src/platform/random/random-id.js';

test('ids have the asked number of random bytes and never repeat, across refills of the pool', () => {
  const ids = new Set<string>();
  // 16-byte ids: about 12 refills of the 4 KiB pool.
  for (let i = 0; i < 3000; i++) ids.add(randomId(16));
  expect(ids.size).toBe(3000);
  for (const id of ids) expect(Buffer.from(id, 'base64url')).toHaveLength(16);
  expect(Buffer.from(randomId(9), 'base64url')).toHaveLength(9);
  // Larger than the pool: taken directly.
  expect(Buffer.from(randomId(5000), 'base64url')).toHaveLength(5000);
});

test('the bytes are spread over every value (not a stuck or zeroed pool)', () => {
  const counts = new Array<number>(256).fill(0);
  for (let i = 0; i < 2000; i++)
    for (const byte of Buffer.from(randomId(16), 'base64url')) counts[byte]! += 1;
  // 32,000 bytes: 125 expected per value; a broken generator leaves values unseen.
  expect(Math.min(...counts)).toBeGreaterThan(60);
  expect(Math.max(...counts)).toBeLessThan(200);
});
