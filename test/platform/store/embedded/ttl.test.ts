import type { IndexSpec } from '../../../../src/platform/store/document-store.js';
import { ExpiryIndex } from '../../../../src/platform/store/embedded/ttl.js';
import { Table } from '../../../../src/platform/store/embedded/table.js';

const spec: IndexSpec = {
  collection: 't',
  name: 'expires',
  key: { expiresAt: 1 },
  expireAfterSeconds: 60,
};

test('takes exactly the documents expired at the time asked, earliest first, once', () => {
  const index = new ExpiryIndex(spec);
  for (let i = 0; i < 10_000; i++)
    index.set({ _id: `later${i}`, expiresAt: new Date(1_000_000 + i) });
  index.set({ _id: 'b', expiresAt: new Date(2000) });
  index.set({ _id: 'a', expiresAt: new Date(1000) });
  index.set({ _id: 'never', expiresAt: 'not a date' });
  // expireAfterSeconds: 60, so `a` expires at 61,000 and `b` at 62,000.
  expect(index.take(60_999)).toEqual([]);
  expect(index.take(62_000)).toEqual(['a', 'b']);
  expect(index.take(62_000)).toEqual([]);
  expect(index.take(1_000_000 + 60_000 + 2)).toEqual(['later0', 'later1', 'later2']);
});

test('a moved, removed or array date counts as it is now; a removed document never comes up', () => {
  const index = new ExpiryIndex(spec);
  index.set({ _id: 'moved', expiresAt: new Date(0) });
  index.set({ _id: 'moved', expiresAt: new Date(100_000) });
  index.set({ _id: 'cleared', expiresAt: new Date(0) });
  index.set({ _id: 'cleared' });
  index.set({ _id: 'deleted', expiresAt: new Date(0) });
  index.remove('deleted');
  index.set({ _id: 'array', expiresAt: [new Date(500_000), new Date(5000)] });
  expect(index.take(60_000 + 5000)).toEqual(['array']);
  expect(index.take(60_000 + 99_999)).toEqual([]);
  expect(index.take(60_000 + 100_000)).toEqual(['moved']);
});

test('stale entries do not pile up: many moves of one date keep the queue small and the answer right', () => {
  const index = new ExpiryIndex(spec);
  for (let i = 0; i < 50_000; i++) index.set({ _id: 'hot', expiresAt: new Date(i) });
  expect((index as unknown as { queue: { length: number } }).queue.length).toBeLessThan(2000);
  expect(index.take(60_000 + 49_998)).toEqual([]);
  expect(index.take(60_000 + 49_999)).toEqual(['hot']);
});

test('the table keeps its TTL indexes with its documents, also those there before the index', () => {
  const table = new Table();
  table.insert({ _id: 'old', expiresAt: new Date(0) });
  table.addIndex(spec);
  const doc = { _id: 'new', expiresAt: new Date(0), n: 1 };
  table.insert(doc);
  // An update that shares the date keeps it; one that moves it moves the expiry.
  table.replace(doc, { ...doc, n: 2 });
  table.replace(table.get('old')!, { _id: 'old', expiresAt: new Date(1_000_000) });
  expect(table.takeExpired('expires', 60_000)).toEqual(['new']);
  table.delete('old');
  expect(table.takeExpired('expires', 10_000_000)).toEqual([]);
});
