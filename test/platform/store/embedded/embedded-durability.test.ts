import { appendFile, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Binary } from 'bson';
import { DuplicateKeyError } from '../../../../src/platform/store/document-store.js';
import {
  EmbeddedDocumentStore,
  type EmbeddedStoreOptions,
} from '../../../../src/platform/store/embedded/embedded-store.js';
import { silentLogger } from '../../../support/silent-logger.js';

interface Note {
  _id: string;
  n: number;
  at?: Date;
  email?: string;
  body?: string;
  bytes?: Binary;
}

let dataDir: string;
const open = (options: Partial<EmbeddedStoreOptions> = {}) =>
  EmbeddedDocumentStore.open({ dataDir, logger: silentLogger, ...options });

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'store-durability-'));
});
afterEach(async () => {
  await rm(dataDir, { recursive: true, force: true });
});

test('reopening after close keeps documents, updates, deletes and indexes', async () => {
  const first = await open();
  const notes = first.collection<Note>('notes');
  await first.ensureIndexes([
    { collection: 'notes', name: 'email_unique', key: { email: 1 }, unique: true },
  ]);
  await notes.insertMany([
    { _id: 'a', n: 1, at: new Date(42), email: 'a@x', bytes: new Binary(Buffer.from([0, 1, 255])) },
    { _id: 'b', n: 2, email: 'b@x' },
    { _id: 'c', n: 3, email: 'c@x' },
  ]);
  await notes.updateOne({ _id: 'a' }, { $inc: { n: 10 } });
  await notes.deleteOne({ _id: 'b' });
  await first.close();

  const second = await open();
  const reopened = second.collection<Note>('notes');
  expect(await reopened.find({}, { sort: { _id: 1 } })).toEqual([
    { _id: 'a', n: 11, at: new Date(42), email: 'a@x', bytes: expect.any(Binary) },
    { _id: 'c', n: 3, email: 'c@x' },
  ]);
  const bytes = (await reopened.findOne({ _id: 'a' }))?.bytes;
  expect([...Buffer.from(bytes!.buffer)]).toEqual([0, 1, 255]);
  // The unique index came back from the journal without ensureIndexes being called again.
  await expect(reopened.insertOne({ _id: 'd', n: 4, email: 'c@x' })).rejects.toBeInstanceOf(
    DuplicateKeyError,
  );
  await second.close();
});

test('an update of top-level fields journals only those fields, and replays to the same document', async () => {
  const first = await open();
  const notes = first.collection<Note & { flag?: boolean; tags?: string[] }>('notes');
  const body = 'x'.repeat(10_000);
  await notes.insertOne({
    _id: 'big',
    n: 1,
    body,
    flag: true,
    tags: ['a'],
    bytes: new Binary(Buffer.from([7, 8])),
  });
  const [journal] = (await readdir(dataDir)).filter((name) => name.startsWith('journal.'));
  const sizeAfterInsert = (await stat(join(dataDir, journal!))).size;
  await notes.updateOne(
    { _id: 'big' },
    { $unset: { flag: '' }, $inc: { n: 1 }, $set: { at: new Date(7) } },
  );
  const patchBytes = (await stat(join(dataDir, journal!))).size - sizeAfterInsert;
  expect(patchBytes).toBeLessThan(200);
  // A nested path goes through mingo, which journals the whole document.
  await notes.updateOne({ _id: 'big' }, { $push: { tags: 'b' } });
  expect((await stat(join(dataDir, journal!))).size - sizeAfterInsert - patchBytes).toBeGreaterThan(
    body.length,
  );
  const before = await notes.findOne({ _id: 'big' });
  expect(before).toEqual({
    _id: 'big',
    n: 2,
    body,
    at: new Date(7),
    tags: ['a', 'b'],
    bytes: expect.any(Binary),
  });
  await first.close();

  const second = await open();
  const after = await second.collection<Note>('notes').findOne({ _id: 'big' });
  expect(after).toEqual(before);
  expect(Object.keys(after!)).toEqual(Object.keys(before!));
  await second.close();
});

test('an updated document shares nothing the caller can change with the stored one', async () => {
  const store = await open();
  const notes = store.collection<Note & { nested?: { k: number } }>('notes');
  await notes.insertOne({ _id: 'a', n: 1, nested: { k: 1 } });
  await notes.updateOne({ _id: 'a' }, { $set: { n: 2 } });
  const read = await notes.findOne({ _id: 'a' });
  read!.nested!.k = 99;
  expect(await notes.findOne({ _id: 'a' })).toEqual({ _id: 'a', n: 2, nested: { k: 1 } });
  await store.close();
});

test('a torn last journal line is dropped and the journal keeps working', async () => {
  const first = await open();
  await first.collection<Note>('notes').insertMany([
    { _id: 'a', n: 1 },
    { _id: 'b', n: 2 },
  ]);
  await first.close();
  const [journal] = (await readdir(dataDir)).filter((name) => name.startsWith('journal.'));
  await appendFile(join(dataDir, journal!), '[{"op":"put","c":"notes","doc":{"_id":"torn","n":');

  const second = await open();
  const notes = second.collection<Note>('notes');
  expect((await notes.find({})).map((doc) => doc._id)).toEqual(['a', 'b']);
  await notes.insertOne({ _id: 'c', n: 3 });
  await second.close();

  const third = await open();
  expect((await third.collection<Note>('notes').find({})).map((doc) => doc._id)).toEqual([
    'a',
    'b',
    'c',
  ]);
  await third.close();
});

test('an unreadable record in the middle of the journal refuses the open', async () => {
  const first = await open();
  await first.collection<Note>('notes').insertOne({ _id: 'a', n: 1 });
  await first.close();
  const [journal] = (await readdir(dataDir)).filter((name) => name.startsWith('journal.'));
  await appendFile(join(dataDir, journal!), 'garbage\n[]\n');
  await expect(open()).rejects.toThrow(/corrupt/);
});

test('compaction writes a snapshot, starts a small journal and keeps every document', async () => {
  const threshold = 64 * 1024;
  const store = await open({ compactionThresholdBytes: threshold });
  const notes = store.collection<Note>('notes');
  await store.ensureIndexes([
    { collection: 'notes', name: 'email_unique', key: { email: 1 }, unique: true },
  ]);
  const body = 'x'.repeat(200);
  for (let i = 0; i < 1000; i += 1) {
    await notes.insertOne({ _id: `n${i}`, n: i, body, email: `${i}@x` });
    if (i % 3 === 0) await notes.updateOne({ _id: `n${i}` }, { $inc: { n: 1000 } });
    if (i % 10 === 0) await notes.deleteOne({ _id: `n${i}` });
  }
  await store.close();

  const files = await readdir(dataDir);
  const snapshots = files.filter((name) => name.startsWith('snapshot.'));
  const journals = files.filter((name) => name.startsWith('journal.'));
  expect(snapshots).toHaveLength(1);
  expect(journals).toHaveLength(1);
  // The journal was cut many times over: it holds at most one threshold's worth.
  const journalSize = (await stat(join(dataDir, journals[0]!))).size;
  expect(journalSize).toBeLessThan(threshold + 4096);
  expect(Number(/\.(\d+)\./.exec(journals[0]!)?.[1])).toBeGreaterThan(1);

  const reopened = await open();
  const again = reopened.collection<Note>('notes');
  expect(await again.countDocuments({})).toBe(900);
  expect(await again.findOne({ _id: 'n3' })).toEqual({ _id: 'n3', n: 1003, body, email: '3@x' });
  expect(await again.findOne({ _id: 'n10' })).toBeNull();
  await expect(again.insertOne({ _id: 'dup', n: 0, email: '5@x' })).rejects.toBeInstanceOf(
    DuplicateKeyError,
  );
  await reopened.close();
});

test('a crash during compaction (snapshot left as a temporary) loses nothing', async () => {
  const store = await open();
  await store.collection<Note>('notes').insertMany([
    { _id: 'a', n: 1 },
    { _id: 'b', n: 2 },
  ]);
  await store.close();
  // What an interrupted compaction leaves: a started next journal and a partial snapshot.
  await writeFile(join(dataDir, 'snapshot.1.tmp'), '{"op":"put"');
  await writeFile(
    join(dataDir, 'journal.1.ejsonl'),
    '[{"op":"put","c":"notes","doc":{"_id":"c","n":3}}]\n',
  );

  const reopened = await open();
  expect((await reopened.collection<Note>('notes').find({})).map((doc) => doc._id)).toEqual([
    'a',
    'b',
    'c',
  ]);
  await reopened.close();
  expect(await readdir(dataDir)).not.toContain('snapshot.1.tmp');
});

test('TTL expiry is journaled: an expired document stays gone after reopening', async () => {
  const store = await open({ ttlSweepIntervalMs: 50 });
  const notes = store.collection<Note>('notes');
  await store.ensureIndexes([
    { collection: 'notes', name: 'ttl', key: { at: 1 }, expireAfterSeconds: 1 },
  ]);
  await notes.insertMany([
    { _id: 'old', n: 1, at: new Date(Date.now() - 5000) },
    { _id: 'fresh', n: 2, at: new Date() },
  ]);
  while (await notes.findOne({ _id: 'old' }))
    await new Promise((resolve) => setTimeout(resolve, 20));
  await store.close();

  const reopened = await open({ ttlSweepIntervalMs: 60_000 });
  expect((await reopened.collection<Note>('notes').find({})).map((doc) => doc._id)).toEqual([
    'fresh',
  ]);
  await reopened.close();
});

test('a closed store refuses work and ping reports it', async () => {
  const store = await open();
  await store.close();
  await expect(store.ping()).rejects.toThrow(/closed/);
  await expect(store.collection<Note>('notes').insertOne({ n: 1 })).rejects.toThrow(/closed/);
});
