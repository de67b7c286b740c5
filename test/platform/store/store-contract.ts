/**
 * The semantics every DocumentStore implementation must have. Run against the embedded
 * engine always and against MongoDB when MONGODB_URL is set, so business code is tested
 * on the behaviour it gets in production.
 */
import { Binary } from 'bson';
import {
  DuplicateKeyError,
  IndexConflictError,
  type Collection,
  type Document,
  type DocumentStore,
} from '../../../src/platform/store/document-store.js';
import type { OpenStore, StoreUnderTest } from '../../support/stores-under-test.js';

interface Item extends Document {
  n?: number;
  name?: string | null;
  tags?: string[];
  profile?: { city?: string; age?: number };
  at?: Date;
  list?: number[];
  items?: { id: number; v: number }[];
  email?: string;
  tenant?: string;
  login?: string;
  expiresAt?: Date;
  bytes?: Binary | Buffer;
  counter?: number;
  created?: boolean;
  label?: string;
  cid?: string | null;
  codes?: { hash: string; usedAt: Date | null }[];
}

export function describeStoreContract(name: string, open: OpenStore): void {
  describe(`DocumentStore contract: ${name}`, () => {
    let subject: StoreUnderTest;
    let store: DocumentStore;
    let collectionCount = 0;
    // A fresh collection per test keeps tests independent on a shared MongoDB database.
    const freshNamed = (): { name: string; items: Collection<Item> } => {
      const name = `contract_${Date.now()}_${collectionCount++}`;
      return { name, items: store.collection<Item>(name) };
    };
    const fresh = (): Collection<Item> => freshNamed().items;

    beforeAll(async () => {
      subject = await open();
      store = subject.store;
    });
    afterAll(async () => {
      await subject.dispose();
    });

    const ids = (docs: Item[]) => docs.map((doc) => doc._id).sort();

    async function seeded(): Promise<Collection<Item>> {
      const items = fresh();
      await items.insertMany([
        {
          _id: 'a',
          n: 1,
          name: 'ann',
          tags: ['x', 'y'],
          profile: { city: 'Oslo', age: 30 },
          at: new Date(1000),
        },
        {
          _id: 'b',
          n: 2,
          name: 'bob',
          tags: ['y'],
          profile: { city: 'Rome', age: 40 },
          at: new Date(2000),
        },
        { _id: 'c', n: 3, name: null, tags: [], profile: { city: 'Oslo' } },
        { _id: 'd', n: 4 },
      ]);
      return items;
    }

    describe('insert and read', () => {
      test('insertOne generates a 24-hex string id when none is given', async () => {
        const items = fresh();
        const id = await items.insertOne({ n: 1 });
        expect(id).toMatch(/^[0-9a-f]{24}$/);
        expect(await items.findOne({ _id: id })).toEqual({ _id: id, n: 1 });
      });

      test('insertOne keeps a caller-chosen id and rejects a second one with DuplicateKeyError', async () => {
        const items = fresh();
        expect(await items.insertOne({ _id: 'k1', n: 1 })).toBe('k1');
        const error = await items.insertOne({ _id: 'k1', n: 2 }).catch((err: unknown) => err);
        expect(error).toBeInstanceOf(DuplicateKeyError);
        expect(error).toMatchObject({ code: 11000, index: '_id_' });
        expect(await items.findOne({ _id: 'k1' })).toEqual({ _id: 'k1', n: 1 });
      });

      test('insertMany is ordered: documents before a duplicate stay inserted', async () => {
        const items = fresh();
        expect(await items.insertMany([{ _id: 'a' }, { n: 1 }])).toEqual([
          'a',
          expect.stringMatching(/^[0-9a-f]{24}$/),
        ]);
        await expect(
          items.insertMany([{ _id: 'b' }, { _id: 'a' }, { _id: 'c' }]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(ids(await items.find({}))).toEqual(expect.arrayContaining(['a', 'b']));
        expect(await items.countDocuments({ _id: 'c' })).toBe(0);
      });

      test('findOne returns null when nothing matches', async () => {
        expect(await fresh().findOne({ _id: 'missing' })).toBeNull();
      });

      test('dates come back as Date and bytes as Binary', async () => {
        const items = fresh();
        await items.insertOne({ _id: 't', at: new Date(123456), bytes: Buffer.from('hello') });
        const doc = await items.findOne({ _id: 't' });
        expect(doc?.at).toBeInstanceOf(Date);
        expect(doc?.at?.getTime()).toBe(123456);
        expect(doc?.bytes).toBeInstanceOf(Binary);
        expect(Buffer.from((doc?.bytes as Binary).buffer).toString()).toBe('hello');
      });
    });

    describe('filters', () => {
      let items: Collection<Item>;
      beforeAll(async () => {
        items = await seeded();
      });
      const match = async (filter: Parameters<Collection<Item>['find']>[0]) =>
        ids(await items.find(filter));

      test('$eq and implicit equality', async () => {
        expect(await match({ n: 2 })).toEqual(['b']);
        expect(await match({ n: { $eq: 3 } })).toEqual(['c']);
      });
      test('$ne also matches documents without the field', async () => {
        expect(await match({ name: { $ne: 'ann' } })).toEqual(['b', 'c', 'd']);
      });
      test('$in and $nin', async () => {
        expect(await match({ n: { $in: [1, 4, 9] } })).toEqual(['a', 'd']);
        expect(await match({ n: { $nin: [1, 4] } })).toEqual(['b', 'c']);
        expect(await match({ tags: { $nin: ['y'] } })).toEqual(['c', 'd']);
      });
      test('$gt $gte $lt $lte on numbers and dates', async () => {
        expect(await match({ n: { $gt: 2 } })).toEqual(['c', 'd']);
        expect(await match({ n: { $gte: 2, $lt: 4 } })).toEqual(['b', 'c']);
        expect(await match({ n: { $lte: 1 } })).toEqual(['a']);
        expect(await match({ at: { $gt: new Date(1500) } })).toEqual(['b']);
      });
      test('$exists', async () => {
        expect(await match({ tags: { $exists: true } })).toEqual(['a', 'b', 'c']);
        expect(await match({ tags: { $exists: false } })).toEqual(['d']);
      });
      test('null matches null and missing fields', async () => {
        expect(await match({ name: null })).toEqual(['c', 'd']);
      });
      test('$and and $or', async () => {
        expect(await match({ $or: [{ n: 1 }, { name: 'bob' }] })).toEqual(['a', 'b']);
        expect(await match({ $and: [{ n: { $gt: 1 } }, { 'profile.city': 'Oslo' }] })).toEqual([
          'c',
        ]);
      });
      test('dotted paths into embedded documents', async () => {
        expect(await match({ 'profile.city': 'Oslo' })).toEqual(['a', 'c']);
        expect(await match({ 'profile.age': { $gte: 35 } })).toEqual(['b']);
      });
      test('array membership', async () => {
        expect(await match({ tags: 'y' })).toEqual(['a', 'b']);
        expect(await match({ tags: { $in: ['x'] } })).toEqual(['a']);
        expect(await match({ tags: { $size: 0 } })).toEqual(['c']);
      });
      test('countDocuments', async () => {
        expect(await items.countDocuments({})).toBe(4);
        expect(await items.countDocuments({ 'profile.city': 'Oslo' })).toBe(2);
        expect(await items.countDocuments({ n: { $gt: 100 } })).toBe(0);
      });
    });

    describe('sort, limit, skip, projection', () => {
      let items: Collection<Item>;
      beforeAll(async () => {
        items = await seeded();
      });

      test('sort ascending and descending', async () => {
        expect((await items.find({}, { sort: { n: -1 } })).map((doc) => doc._id)).toEqual([
          'd',
          'c',
          'b',
          'a',
        ]);
        expect(
          (await items.find({}, { sort: { 'profile.city': 1, n: -1 } })).map((doc) => doc._id),
        ).toEqual(['d', 'c', 'a', 'b']);
      });
      test('skip and limit apply after the sort', async () => {
        expect(
          (await items.find({}, { sort: { n: 1 }, skip: 1, limit: 2 })).map((doc) => doc._id),
        ).toEqual(['b', 'c']);
        expect(await items.find({}, { sort: { n: 1 }, limit: 0 })).toHaveLength(4);
      });
      test('findOne honours sort', async () => {
        expect((await items.findOne({}, { sort: { n: -1 } }))?._id).toBe('d');
      });
      test('inclusion projection keeps _id unless excluded', async () => {
        expect(
          await items.findOne({ _id: 'a' }, { projection: { n: 1, 'profile.city': 1 } }),
        ).toEqual({
          _id: 'a',
          n: 1,
          profile: { city: 'Oslo' },
        });
        expect(await items.findOne({ _id: 'a' }, { projection: { _id: 0, name: 1 } })).toEqual({
          name: 'ann',
        });
      });
      test('exclusion projection', async () => {
        expect(
          await items.findOne({ _id: 'b' }, { projection: { tags: 0, profile: 0, at: 0 } }),
        ).toEqual({
          _id: 'b',
          n: 2,
          name: 'bob',
        });
      });
    });

    // The embedded engine answers these without mingo (plain-filter.ts, plain-update.ts,
    // plain-projection.ts); the answers must stay MongoDB's.
    describe('plain filters, updates and projections', () => {
      test('equality and $in reach into arrays one level, compare strictly by type, and combine with and', async () => {
        const items = await seeded();
        expect(ids(await items.find({ tags: 'y' }))).toEqual(['a', 'b']);
        expect(ids(await items.find({ tags: { $in: ['x', 'q'] } }))).toEqual(['a']);
        expect(ids(await items.find({ n: { $in: [2, 4] } }))).toEqual(['b', 'd']);
        expect(ids(await items.find({ n: '1' as unknown as number }))).toEqual([]); // a string never equals a number
        expect(ids(await items.find({ tags: 'y', n: 2 }))).toEqual(['b']);
        expect(ids(await items.find({ name: 'ann', tags: 'q' }))).toEqual([]);
        expect(await items.countDocuments({ _id: { $in: ['a', 'c', 'zz'] } })).toBe(2);
        expect(ids(await items.find({ n: 0, _id: 'a' }))).toEqual([]);
      });

      test('$exists counts a null field as present; $type string reaches into arrays; operators on one field each hold', async () => {
        const items = await seeded();
        expect(ids(await items.find({ name: { $exists: true } }))).toEqual(['a', 'b', 'c']);
        expect(ids(await items.find({ at: { $exists: false } }))).toEqual(['c', 'd']);
        expect(ids(await items.find({ _id: 'a', at: { $exists: false } }))).toEqual([]);
        expect(ids(await items.find({ name: { $type: 'string' } }))).toEqual(['a', 'b']);
        expect(ids(await items.find({ tags: { $type: 'string' } }))).toEqual(['a', 'b']);
        expect(ids(await items.find({ name: { $eq: 'bob', $type: 'string' } }))).toEqual(['b']);
        expect(
          ids(await items.find({ tags: { $in: ['x', 'y'], $exists: true }, n: { $eq: 2 } })),
        ).toEqual(['b']);
      });

      test('$set of an equal value, $unset of a missing field and $inc by 0 modify nothing; $inc by 0 creates a missing field', async () => {
        const items = await seeded();
        expect(
          await items.updateOne({ _id: 'a' }, { $set: { at: new Date(1000), tags: ['x', 'y'] } }),
        ).toEqual({ matchedCount: 1, modifiedCount: 0 });
        expect(await items.updateOne({ _id: 'a' }, { $unset: { counter: '' } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(await items.updateOne({ _id: 'a' }, { $inc: { n: 0 } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(await items.updateOne({ _id: 'a' }, { $inc: { counter: 0 } })).toEqual({
          matchedCount: 1,
          modifiedCount: 1,
        });
        expect(await items.findOne({ _id: 'a' }, { projection: { counter: 1 } })).toEqual({
          _id: 'a',
          counter: 0,
        });
      });

      test('$max raises a number or a date only upwards, and creates a missing field', async () => {
        const items = await seeded();
        expect(await items.updateOne({ _id: 'b' }, { $max: { n: 1 } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(await items.updateOne({ _id: 'b' }, { $max: { n: 2 } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(
          await items.updateOne({ _id: 'b' }, { $max: { n: 7, at: new Date(3000), counter: 1 } }),
        ).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await items.updateOne({ _id: 'b' }, { $max: { at: new Date(2500) } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(
          await items.findOne({ _id: 'b' }, { projection: { n: 1, at: 1, counter: 1 } }),
        ).toEqual({ _id: 'b', n: 7, at: new Date(3000), counter: 1 });
      });

      test('an updateMany gives each document its own copy of a $set value', async () => {
        const items = await seeded();
        await items.updateMany({ n: { $in: [1, 2] } }, { $set: { profile: { city: 'Bergen' } } });
        await items.updateOne({ _id: 'a' }, { $set: { 'profile.age': 1 } });
        expect(await items.findOne({ _id: 'b' }, { projection: { profile: 1 } })).toEqual({
          _id: 'b',
          profile: { city: 'Bergen' },
        });
      });

      test('{_id: 1} alone projects the id only; {_id: 0} alone drops it', async () => {
        const items = await seeded();
        expect(await items.findOne({ _id: 'd' }, { projection: { _id: 1 } })).toEqual({ _id: 'd' });
        expect(await items.findOne({ _id: 'd' }, { projection: { _id: 0 } })).toEqual({ n: 4 });
        expect(await items.findOne({ _id: 'c' }, { projection: { name: 1, missing: 1 } })).toEqual({
          _id: 'c',
          name: null,
        });
      });
    });

    describe('updates', () => {
      test('$set (also creating dotted paths) and $unset', async () => {
        const items = await seeded();
        const result = await items.updateOne(
          { _id: 'a' },
          { $set: { name: 'anna', 'profile.zip': '0150' }, $unset: { tags: '' } },
        );
        expect(result).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await items.findOne({ _id: 'a' })).toEqual({
          _id: 'a',
          n: 1,
          name: 'anna',
          profile: { city: 'Oslo', age: 30, zip: '0150' },
          at: new Date(1000),
        });
      });

      test('a no-op update matches without modifying', async () => {
        const items = await seeded();
        expect(await items.updateOne({ _id: 'b' }, { $set: { n: 2 } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(await items.updateOne({ _id: 'zz' }, { $set: { n: 2 } })).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
        });
      });

      test('$inc on existing and missing fields', async () => {
        const items = await seeded();
        await items.updateOne({ _id: 'a' }, { $inc: { n: 5, counter: 2 } });
        await items.updateOne({ _id: 'a' }, { $inc: { counter: -1 } });
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, counter: 1 } })).toEqual({
          _id: 'a',
          n: 6,
          counter: 1,
        });
      });

      test('$push: one value, $each, and $each with $slice', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', list: [1] });
        await items.updateOne({ _id: 'p' }, { $push: { list: 2 } });
        await items.updateOne({ _id: 'p' }, { $push: { list: { $each: [3, 4, 5] } } });
        expect((await items.findOne({ _id: 'p' }))?.list).toEqual([1, 2, 3, 4, 5]);
        await items.updateOne({ _id: 'p' }, { $push: { list: { $each: [6], $slice: -3 } } });
        expect((await items.findOne({ _id: 'p' }))?.list).toEqual([4, 5, 6]);
      });

      test('$push with $slice onto a missing array', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p' });
        await items.updateOne(
          { _id: 'p' },
          { $push: { list: { $each: [1, 2, 3, 4], $slice: -2 } } },
        );
        expect((await items.findOne({ _id: 'p' }))?.list).toEqual([3, 4]);
      });

      test('$pull by value and by condition', async () => {
        const items = fresh();
        await items.insertOne({
          _id: 'p',
          list: [1, 2, 3, 2, 5],
          items: [
            { id: 1, v: 1 },
            { id: 2, v: 2 },
          ],
        });
        await items.updateOne({ _id: 'p' }, { $pull: { list: 2 } });
        await items.updateOne({ _id: 'p' }, { $pull: { list: { $gte: 5 }, items: { id: 1 } } });
        expect(await items.findOne({ _id: 'p' })).toEqual({
          _id: 'p',
          list: [1, 3],
          items: [{ id: 2, v: 2 }],
        });
      });

      test('$addToSet adds only absent values, also with $each', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', tags: ['a'] });
        await items.updateOne({ _id: 'p' }, { $addToSet: { tags: 'a' } });
        await items.updateOne(
          { _id: 'p' },
          { $addToSet: { tags: { $each: ['b', 'a', 'c', 'b'] } } },
        );
        await items.insertOne({ _id: 'q' });
        await items.updateOne({ _id: 'q' }, { $addToSet: { tags: { $each: ['x', 'x', 'y'] } } });
        expect((await items.findOne({ _id: 'p' }))?.tags).toEqual(['a', 'b', 'c']);
        expect((await items.findOne({ _id: 'q' }))?.tags).toEqual(['x', 'y']);
      });

      test('the positional $ updates the array element the filter matched', async () => {
        const items = fresh();
        await items.insertOne({
          _id: 'p',
          items: [
            { id: 1, v: 1 },
            { id: 2, v: 2 },
          ],
        });
        await items.updateOne({ _id: 'p', 'items.id': 2 }, { $set: { 'items.$.v': 20 } });
        expect((await items.findOne({ _id: 'p' }))?.items).toEqual([
          { id: 1, v: 1 },
          { id: 2, v: 20 },
        ]);
      });

      test('$setOnInsert is ignored when a document matched', async () => {
        const items = await seeded();
        await items.updateOne(
          { _id: 'a' },
          { $set: { n: 10 }, $setOnInsert: { created: true } },
          { upsert: true },
        );
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, created: 1 } })).toEqual({
          _id: 'a',
          n: 10,
        });
      });

      test('upsert seeds the filter equalities, then applies $setOnInsert and the update', async () => {
        const items = fresh();
        const result = await items.updateOne(
          { login: 'zed', 'profile.city': 'Oslo', n: { $gt: 5 } },
          { $set: { name: 'Zed' }, $inc: { counter: 1 }, $setOnInsert: { created: true } },
          { upsert: true },
        );
        expect(result).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedId: expect.stringMatching(/^[0-9a-f]{24}$/),
        });
        expect(await items.findOne({ _id: result.upsertedId! })).toEqual({
          _id: result.upsertedId,
          login: 'zed',
          profile: { city: 'Oslo' },
          name: 'Zed',
          counter: 1,
          created: true,
        });
      });

      test('upsert with an _id in the filter uses it', async () => {
        const items = fresh();
        const result = await items.updateOne(
          { _id: 'fixed' },
          { $set: { n: 1 } },
          { upsert: true },
        );
        expect(result.upsertedId).toBe('fixed');
        expect(await items.findOne({ _id: 'fixed' })).toEqual({ _id: 'fixed', n: 1 });
      });

      test('updateMany updates every match and upserts at most one', async () => {
        const items = await seeded();
        expect(
          await items.updateMany({ 'profile.city': 'Oslo' }, { $set: { tenant: 't1' } }),
        ).toEqual({
          matchedCount: 2,
          modifiedCount: 2,
        });
        expect(ids(await items.find({ tenant: 't1' }))).toEqual(['a', 'c']);
        const upserted = await items.updateMany(
          { tenant: 't9' },
          { $set: { n: 9 } },
          { upsert: true },
        );
        expect(upserted.upsertedId).toEqual(expect.any(String));
        expect(await items.countDocuments({ tenant: 't9', n: 9 })).toBe(1);
      });

      test('an update without operators is rejected', async () => {
        const items = await seeded();
        await expect(items.updateOne({ _id: 'a' }, { n: 5 })).rejects.toThrow();
        expect((await items.findOne({ _id: 'a' }))?.n).toBe(1);
      });
    });

    describe('findOneAndUpdate and findOneAndDelete', () => {
      test('returns the document before (default) or after the update', async () => {
        const items = await seeded();
        expect(await items.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).toMatchObject({
          _id: 'a',
          n: 1,
        });
        expect(
          await items.findOneAndUpdate(
            { _id: 'a' },
            { $inc: { n: 1 } },
            { returnDocument: 'after' },
          ),
        ).toMatchObject({
          _id: 'a',
          n: 3,
        });
      });

      test('sort chooses which document is updated', async () => {
        const items = await seeded();
        const updated = await items.findOneAndUpdate(
          { 'profile.city': 'Oslo' },
          { $set: { tenant: 'first' } },
          { sort: { n: -1 }, returnDocument: 'after', projection: { tenant: 1 } },
        );
        expect(updated).toEqual({ _id: 'c', tenant: 'first' });
      });

      test('null when nothing matches; upsert inserts and returns the new document', async () => {
        const items = fresh();
        expect(await items.findOneAndUpdate({ login: 'x' }, { $set: { n: 1 } })).toBeNull();
        expect(
          await items.findOneAndUpdate({ login: 'x' }, { $set: { n: 1 } }, { upsert: true }),
        ).toBeNull();
        const after = await items.findOneAndUpdate(
          { login: 'y' },
          { $inc: { counter: 1 } },
          { upsert: true, returnDocument: 'after' },
        );
        expect(after).toEqual({
          _id: expect.stringMatching(/^[0-9a-f]{24}$/),
          login: 'y',
          counter: 1,
        });
        expect(await items.countDocuments({})).toBe(2);
      });

      test('findOneAndDelete removes and returns the first match in sort order', async () => {
        const items = await seeded();
        expect((await items.findOneAndDelete({ n: { $gte: 2 } }, { sort: { n: 1 } }))?._id).toBe(
          'b',
        );
        expect(await items.findOneAndDelete({ _id: 'b' })).toBeNull();
        expect(await items.countDocuments({})).toBe(3);
      });
    });

    describe('deletes', () => {
      test('deleteOne removes one match, deleteMany all', async () => {
        const items = await seeded();
        expect(await items.deleteOne({ 'profile.city': 'Rome' })).toEqual({ deletedCount: 1 });
        expect(await items.deleteOne({ 'profile.city': 'Rome' })).toEqual({ deletedCount: 0 });
        expect(await items.deleteMany({ n: { $gte: 2 } })).toEqual({ deletedCount: 2 });
        expect(await items.deleteMany({ n: { $gte: 2 } })).toEqual({ deletedCount: 0 });
        expect(await items.countDocuments({})).toBe(1);
      });
    });

    describe('unique indexes', () => {
      test('single-field unique index rejects inserts, updates and upserts that collide', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([
          { collection, name: 'email_unique', key: { email: 1 }, unique: true },
        ]);
        await store.ensureIndexes([
          { collection, name: 'email_unique', key: { email: 1 }, unique: true },
        ]);
        await items.insertOne({ _id: 'u1', email: 'a@x' });
        await items.insertOne({ _id: 'u2', email: 'b@x' });
        await expect(items.insertOne({ email: 'a@x' })).rejects.toMatchObject({
          name: 'DuplicateKeyError',
          index: 'email_unique',
        });
        await expect(
          items.updateOne({ _id: 'u2' }, { $set: { email: 'a@x' } }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(
          items.updateOne({ _id: 'u3' }, { $set: { email: 'b@x' } }, { upsert: true }),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
        expect(await items.findOne({ _id: 'u2' })).toEqual({ _id: 'u2', email: 'b@x' });
        expect(await items.countDocuments({})).toBe(2);
        await items.updateOne({ _id: 'u1' }, { $set: { email: 'c@x' } });
        await items.insertOne({ _id: 'u4', email: 'a@x' });
        expect((await items.findOne({ email: 'a@x' }))?._id).toBe('u4');
      });

      test('a missing field counts as null; a partial index leaves such documents out', async () => {
        const { name: plainName, items: plain } = freshNamed();
        await store.ensureIndexes([
          { collection: plainName, name: 'login_unique', key: { login: 1 }, unique: true },
        ]);
        await plain.insertOne({ n: 1 });
        await expect(plain.insertOne({ n: 2 })).rejects.toBeInstanceOf(DuplicateKeyError);

        const { name: partialName, items: partial } = freshNamed();
        await store.ensureIndexes([
          {
            collection: partialName,
            name: 'login_unique_if_set',
            key: { login: 1 },
            unique: true,
            partialFilterExpression: { login: { $exists: true } },
          },
        ]);
        await partial.insertMany([{ n: 1 }, { n: 2 }, { login: 'l1' }]);
        await expect(partial.insertOne({ login: 'l1' })).rejects.toBeInstanceOf(DuplicateKeyError);
      });

      test('compound unique index rejects only the same combination', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([
          { collection, name: 'tenant_login', key: { tenant: 1, login: 1 }, unique: true },
        ]);
        await items.insertMany([
          { tenant: 't1', login: 'a' },
          { tenant: 't1', login: 'b' },
          { tenant: 't2', login: 'a' },
        ]);
        await expect(items.insertOne({ tenant: 't1', login: 'a' })).rejects.toMatchObject({
          index: 'tenant_login',
          code: 11000,
        });
        expect(await items.countDocuments({ tenant: 't1', login: 'a' })).toBe(1);
      });

      test('creating a unique index over duplicates fails with DuplicateKeyError', async () => {
        const { name: collection, items } = freshNamed();
        await items.insertMany([{ email: 'same' }, { email: 'same' }]);
        await expect(
          store.ensureIndexes([
            { collection, name: 'email_unique', key: { email: 1 }, unique: true },
          ]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
      });
    });

    describe('TTL indexes', () => {
      test('expired documents disappear, others stay', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([
          { collection, name: 'expires', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
        ]);
        await items.insertMany([
          { _id: 'old', expiresAt: new Date(Date.now() - 1000) },
          { _id: 'new', expiresAt: new Date(Date.now() + 3_600_000) },
          { _id: 'none' },
        ]);
        const deadline = Date.now() + subject.ttlGraceMs;
        while ((await items.findOne({ _id: 'old' })) && Date.now() < deadline) await sleep(200);
        expect(ids(await items.find({}))).toEqual(['new', 'none']);
      }, 150_000);
    });

    describe('array paths (MongoDB reaches a missing value from every element without the field)', () => {
      const codes = () => [
        { hash: 'h0', usedAt: new Date(1) },
        { hash: 'h1', usedAt: null },
      ];

      test('a numeric step also names a field of every element: `codes.0.usedAt: null` matches a spent codes[0]', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', codes: codes() });
        // codes[0].usedAt is set, but no element has a field "0": missing matches null.
        expect(await items.countDocuments({ 'codes.0.usedAt': null })).toBe(1);
        expect(await items.countDocuments({ 'codes.0.usedAt': new Date(1) })).toBe(1);
        // $type: 'null' needs a null value, which only codes[1] has.
        expect(await items.countDocuments({ 'codes.0.usedAt': { $type: 'null' } })).toBe(0);
        expect(await items.countDocuments({ 'codes.1.usedAt': { $type: 'null' } })).toBe(1);
        expect(await items.countDocuments({ 'codes.0.usedAt': { $ne: null } })).toBe(0);
      });

      test('a guard on `codes.<i>.usedAt: null` guards nothing: a spent code matches again', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', codes: codes() });
        const spend = () =>
          items.updateOne(
            { _id: 'p', 'codes.1.usedAt': null },
            { $set: { 'codes.1.usedAt': new Date(2) } },
          );
        expect((await spend()).matchedCount).toBe(1);
        expect((await spend()).matchedCount).toBe(1);
      });

      test('$elemMatch with the positional $ spends an element exactly once', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', codes: codes() });
        const spend = () =>
          items.updateOne(
            { _id: 'p', codes: { $elemMatch: { hash: 'h1', usedAt: null } } },
            { $set: { 'codes.$.usedAt': new Date(2) } },
          );
        expect(await spend()).toEqual({ matchedCount: 1, modifiedCount: 1 });
        expect(await spend()).toEqual({ matchedCount: 0, modifiedCount: 0 });
        expect((await items.findOne({ _id: 'p' }))?.codes).toEqual([
          { hash: 'h0', usedAt: new Date(1) },
          { hash: 'h1', usedAt: new Date(2) },
        ]);
      });

      test('a dotted path compared with null matches when any element lacks the field', async () => {
        const items = fresh();
        await items.insertMany([
          { _id: 'some', items: [{ id: 1, v: 1 }, { id: 2 } as never] },
          {
            _id: 'all',
            items: [
              { id: 1, v: 1 },
              { id: 2, v: 2 },
            ],
          },
        ]);
        expect(ids(await items.find({ 'items.v': null }))).toEqual(['some']);
        expect(ids(await items.find({ 'items.v': { $ne: null } }))).toEqual(['all']);
        expect(ids(await items.find({ 'items.v': { $in: [null, 2] } }))).toEqual(['all', 'some']);
      });
    });

    describe('more filters', () => {
      test('$nor matches documents that match none of its clauses (also those without the fields)', async () => {
        const items = await seeded();
        expect(ids(await items.find({ $nor: [{ n: 1 }, { name: 'bob' }] }))).toEqual(['c', 'd']);
        expect(
          ids(await items.find({ $nor: [{ 'profile.city': 'Oslo' }, { n: { $gte: 4 } }] })),
        ).toEqual(['b']);
      });

      test('keyset pagination: $or on (sort key, _id), sort and limit walk every document once', async () => {
        const items = fresh();
        const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
        await items.insertMany([
          { _id: 'k1', at: at(3) },
          { _id: 'k2', at: at(1) },
          { _id: 'k3', at: at(3) },
          { _id: 'k4', at: at(2) },
          { _id: 'k5', at: at(3) },
          { _id: 'k6', at: at(1) },
        ]);
        const seen: string[] = [];
        let after: Item | undefined;
        for (;;) {
          const filter = after
            ? { $or: [{ at: { $lt: after.at } }, { at: after.at, _id: { $gt: after._id } }] }
            : {};
          const page = await items.find(filter, { sort: { at: -1, _id: 1 }, limit: 2 });
          if (page.length === 0) break;
          seen.push(...page.map((doc) => doc._id));
          after = page[page.length - 1];
        }
        expect(seen).toEqual(['k1', 'k3', 'k5', 'k4', 'k2', 'k6']);
      });
    });

    describe('MongoDB sort order', () => {
      test('strings by UTF-8 bytes: U+FF5E sorts before U+1F600 (JavaScript orders them the other way)', async () => {
        const items = fresh();
        await items.insertMany([
          { _id: 'emoji', label: '\u{1F600}' },
          { _id: 'fullwidth', label: '\uFF5E' },
          { _id: 'upper', label: 'Z' },
          { _id: 'lower', label: 'a' },
          { _id: 'accent', label: '\u00E9' },
        ]);
        expect((await items.find({}, { sort: { label: 1 } })).map((doc) => doc._id)).toEqual([
          'upper',
          'lower',
          'accent',
          'fullwidth',
          'emoji',
        ]);
        expect((await items.find({}, { sort: { label: -1 } })).map((doc) => doc._id)).toEqual([
          'emoji',
          'fullwidth',
          'accent',
          'lower',
          'upper',
        ]);
      });

      test('an array sorts by its largest element descending and its smallest ascending', async () => {
        const items = fresh();
        await items.insertMany([
          { _id: 'wide', list: [1, 5] },
          { _id: 'single', list: [3] },
          { _id: 'low', list: [0, 4] },
        ]);
        expect((await items.find({}, { sort: { list: -1 } })).map((doc) => doc._id)).toEqual([
          'wide',
          'low',
          'single',
        ]);
        expect((await items.find({}, { sort: { list: 1 } })).map((doc) => doc._id)).toEqual([
          'low',
          'wide',
          'single',
        ]);
      });

      test('values of different types sort by BSON type: missing and null, numbers, strings, dates', async () => {
        const items = fresh();
        await items.insertMany([
          { _id: 'date', label: new Date(0) as never },
          { _id: 'string', label: '1' },
          { _id: 'number', label: 2 as never },
          { _id: 'missing' },
        ]);
        expect((await items.find({}, { sort: { label: 1 } })).map((doc) => doc._id)).toEqual([
          'missing',
          'number',
          'string',
          'date',
        ]);
      });
    });

    describe('upserts and modifiedCount', () => {
      test('an upsert with only $setOnInsert inserts once and then leaves the document alone', async () => {
        const items = fresh();
        const first = await items.updateOne(
          { login: 'l' },
          { $setOnInsert: { n: 1, created: true } },
          { upsert: true },
        );
        expect(first).toEqual({
          matchedCount: 0,
          modifiedCount: 0,
          upsertedId: expect.any(String),
        });
        const second = await items.updateOne(
          { login: 'l' },
          { $setOnInsert: { n: 2 } },
          { upsert: true },
        );
        expect(second).toEqual({ matchedCount: 1, modifiedCount: 0 });
        expect(await items.find({})).toEqual([
          { _id: first.upsertedId, login: 'l', n: 1, created: true },
        ]);
      });

      test('$inc with $setOnInsert: the insert gets both, a match only the increment', async () => {
        const items = fresh();
        const bump = () =>
          items.findOneAndUpdate(
            { _id: 'conv' },
            { $inc: { counter: 1 }, $setOnInsert: { created: true, n: 0 } },
            { upsert: true, returnDocument: 'after' },
          );
        expect(await bump()).toEqual({ _id: 'conv', counter: 1, created: true, n: 0 });
        expect(await bump()).toEqual({ _id: 'conv', counter: 2, created: true, n: 0 });
      });

      test('a no-op $addToSet or $pull matches without modifying', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', tags: ['a'] });
        expect(await items.updateOne({ _id: 'p' }, { $addToSet: { tags: 'a' } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(await items.updateOne({ _id: 'p' }, { $pull: { tags: 'zz' } })).toEqual({
          matchedCount: 1,
          modifiedCount: 0,
        });
        expect(await items.updateOne({ _id: 'p' }, { $pull: { tags: 'a' } })).toEqual({
          matchedCount: 1,
          modifiedCount: 1,
        });
      });
    });

    describe('updates MongoDB refuses (with its error codes)', () => {
      const refusal = (promise: Promise<unknown>) =>
        promise.then(
          () => 'accepted',
          (err: unknown) => ({ code: (err as { code?: unknown }).code }),
        );

      test('$set and $setOnInsert on one path: 40 ConflictingUpdateOperators, matched or not', async () => {
        const items = await seeded();
        const update = { $set: { name: 'x' }, $setOnInsert: { name: 'y' } };
        expect(await refusal(items.updateOne({ _id: 'a' }, update, { upsert: true }))).toEqual({
          code: 40,
        });
        expect(await refusal(items.updateOne({ _id: 'new' }, update, { upsert: true }))).toEqual({
          code: 40,
        });
        expect(
          await refusal(
            items.updateOne({ _id: 'a' }, { $set: { profile: {} }, $inc: { 'profile.age': 1 } }),
          ),
        ).toEqual({ code: 40 });
        expect(await items.findOne({ _id: 'a' }, { projection: { name: 1 } })).toEqual({
          _id: 'a',
          name: 'ann',
        });
        expect(await items.countDocuments({ _id: 'new' })).toBe(0);
      });

      test('$inc on null or a string: 14 TypeMismatch', async () => {
        const items = await seeded();
        expect(
          await refusal(items.updateOne({ _id: 'c' }, { $inc: { name: 1 } as never })),
        ).toEqual({ code: 14 });
        expect(
          await refusal(items.updateOne({ _id: 'a' }, { $inc: { name: 1 } as never })),
        ).toEqual({ code: 14 });
        expect((await items.findOne({ _id: 'a' }))?.name).toBe('ann');
      });

      test('$addToSet on a non-array: 2 BadValue', async () => {
        const items = await seeded();
        expect(
          await refusal(items.updateOne({ _id: 'a' }, { $addToSet: { name: 'x' } as never })),
        ).toEqual({ code: 2 });
        expect((await items.findOne({ _id: 'a' }))?.name).toBe('ann');
      });

      test("an upsert whose $setOnInsert._id differs from the filter's _id: 66 ImmutableField", async () => {
        const items = fresh();
        expect(
          await refusal(
            items.updateOne(
              { _id: 'one' },
              { $setOnInsert: { _id: 'two', n: 1 } },
              { upsert: true },
            ),
          ),
        ).toEqual({ code: 66 });
        expect(await items.countDocuments({})).toBe(0);
      });
    });

    describe('indexes MongoDB refuses', () => {
      const refusal = (promise: Promise<unknown>) =>
        promise.then(
          () => 'accepted',
          (err: unknown) => ({ code: (err as { code?: unknown }).code }),
        );

      test('the same key pattern under a second name: 85 IndexOptionsConflict, as IndexConflictError', async () => {
        const { name: collection } = freshNamed();
        await store.ensureIndexes([{ collection, name: 'by_login', key: { login: 1 } }]);
        const error = await store
          .ensureIndexes([{ collection, name: 'login_again', key: { login: 1 } }])
          .catch((err: unknown) => err);
        expect(error).toBeInstanceOf(IndexConflictError);
        expect(error).toMatchObject({ code: 85, collection, index: 'login_again' });
      });

      test('a name taken by other keys: 86 IndexKeySpecsConflict; by another TTL: 85', async () => {
        const { name: collection } = freshNamed();
        await store.ensureIndexes([
          { collection, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 60 },
        ]);
        expect(
          await refusal(
            store.ensureIndexes([
              { collection, name: 'expiry', key: { at: 1 }, expireAfterSeconds: 60 },
            ]),
          ),
        ).toEqual({ code: 86 });
        expect(
          await refusal(
            store.ensureIndexes([
              { collection, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
            ]),
          ),
        ).toEqual({ code: 85 });
        await store.ensureIndexes([
          { collection, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 60 },
        ]);
      });

      test('TTL on a compound index (67) or on _id (197)', async () => {
        const { name: collection } = freshNamed();
        expect(
          await refusal(
            store.ensureIndexes([
              {
                collection,
                name: 'compound_ttl',
                key: { tenant: 1, expiresAt: 1 },
                expireAfterSeconds: 0,
              },
            ]),
          ),
        ).toEqual({ code: 67 });
        expect(
          await refusal(
            store.ensureIndexes([
              { collection, name: 'id_ttl', key: { _id: 1 }, expireAfterSeconds: 0 },
            ]),
          ),
        ).toEqual({ code: 197 });
      });

      test('a partial filter with $ne or $exists: false: 67 CannotCreateIndex', async () => {
        const { name: collection } = freshNamed();
        const partial = (partialFilterExpression: Record<string, unknown>) =>
          refusal(
            store.ensureIndexes([
              {
                collection,
                name: `p_${Object.keys(partialFilterExpression.login as object)[0]}`,
                key: { login: 1 },
                unique: true,
                partialFilterExpression,
              },
            ]),
          );
        expect(await partial({ login: { $ne: null } })).toEqual({ code: 67 });
        expect(await partial({ login: { $exists: false } })).toEqual({ code: 67 });
      });

      test('a unique index partial on $type: string lets documents without a string coexist', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([
          {
            collection,
            name: 'tenant_cid',
            key: { tenant: 1, cid: 1 },
            unique: true,
            partialFilterExpression: { cid: { $type: 'string' } },
          },
        ]);
        await items.insertMany([
          { tenant: 't' },
          { tenant: 't' },
          { tenant: 't', cid: null },
          { tenant: 't', cid: null },
          { tenant: 't', cid: 'x' },
        ]);
        await expect(items.insertOne({ tenant: 't', cid: 'x' })).rejects.toMatchObject({
          index: 'tenant_cid',
        });
        expect(await items.countDocuments({ tenant: 't' })).toBe(5);
      });
    });

    describe('query plans', () => {
      test('a partial index serves a query only when the query implies its filter', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([
          {
            collection,
            name: 'tenant_cid',
            key: { tenant: 1, cid: 1 },
            unique: true,
            partialFilterExpression: { cid: { $type: 'string' } },
          },
        ]);
        await items.insertMany([{ tenant: 't', cid: 'x' }, { tenant: 't' }]);
        // Equality with a string does not imply $type: 'string' for MongoDB's planner.
        expect(await store.explain(collection, { tenant: 't', cid: 'x' })).toEqual({
          stage: 'COLLSCAN',
          indexes: [],
        });
        expect(
          await store.explain(collection, { tenant: 't', cid: { $eq: 'x', $type: 'string' } }),
        ).toEqual({ stage: 'IXSCAN', indexes: ['tenant_cid'] });
        expect(
          await items.findOne({ tenant: 't', cid: { $eq: 'x', $type: 'string' } }),
        ).toMatchObject({ cid: 'x' });
      });

      test('an index serves a filter on its leading field, a sort by it, and a $or clause by clause', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([
          { collection, name: 'tenant_at', key: { tenant: 1, at: -1 } },
          { collection, name: 'by_login', key: { login: 1 } },
        ]);
        await items.insertMany([
          { tenant: 't', login: 'l', at: new Date(1) },
          { tenant: 'u', login: 'm' },
        ]);
        expect(
          await store.explain(collection, { tenant: 't', at: { $lt: new Date(5) } }),
        ).toMatchObject({ stage: 'IXSCAN', indexes: ['tenant_at'] });
        expect(await store.explain(collection, { _id: 'x' })).toMatchObject({
          stage: 'IXSCAN',
          indexes: ['_id_'],
        });
        expect(
          await store.explain(collection, { $or: [{ tenant: 't' }, { login: 'm' }] }),
        ).toMatchObject({ stage: 'IXSCAN' });
        expect(await store.explain(collection, { at: { $lt: new Date(5) } })).toEqual({
          stage: 'COLLSCAN',
          indexes: [],
        });
        expect(await store.explain(collection, { $or: [{ tenant: 't' }, { n: 1 }] })).toEqual({
          stage: 'COLLSCAN',
          indexes: [],
        });
      });
    });

    describe('copies', () => {
      test('mutating a result or an inserted object never changes stored data', async () => {
        const items = fresh();
        const input: Item = { _id: 'c', tags: ['a'], profile: { city: 'Oslo' }, at: new Date(5) };
        await items.insertOne(input);
        input.tags!.push('mutated');
        input.profile!.city = 'mutated';
        input.at!.setTime(0);

        const read = await items.findOne({ _id: 'c' });
        read!.tags!.push('mutated');
        read!.profile!.city = 'mutated';
        const [listed] = await items.find({ _id: 'c' });
        listed!.tags!.length = 0;
        const after = await items.findOneAndUpdate(
          { _id: 'c' },
          { $set: { n: 1 } },
          { returnDocument: 'after' },
        );
        after!.profile!.city = 'mutated';

        expect(await items.findOne({ _id: 'c' })).toEqual({
          _id: 'c',
          tags: ['a'],
          profile: { city: 'Oslo' },
          at: new Date(5),
          n: 1,
        });
      });

      test('values given to an update are copied too', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'c' });
        const profile = { city: 'Oslo' };
        await items.updateOne({ _id: 'c' }, { $set: { profile } });
        profile.city = 'mutated';
        expect((await items.findOne({ _id: 'c' }))?.profile).toEqual({ city: 'Oslo' });
      });
    });

    test('ping succeeds on a healthy store', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
