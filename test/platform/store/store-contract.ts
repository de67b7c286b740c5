/**
 * The semantics every DocumentStore implementation must have. Run against the embedded
 * engine always and against MongoDB when MONGODB_URL is set, so business code is tested
 * on the behaviour it gets in production.
 */
import { Binary } from 'bson';
import { DuplicateKeyError, type Collection, type Document, type DocumentStore } from '../../../src/platform/store/document-store.js';

export interface StoreUnderTest {
  store: DocumentStore;
  /** Longest time an expired document may stay visible (MongoDB's TTL monitor runs every 60 s). */
  ttlGraceMs: number;
  /** Releases the store and anything the factory created for it. */
  dispose(): Promise<void>;
}

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
}

export function describeStoreContract(name: string, open: () => Promise<StoreUnderTest>): void {
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
        { _id: 'a', n: 1, name: 'ann', tags: ['x', 'y'], profile: { city: 'Oslo', age: 30 }, at: new Date(1000) },
        { _id: 'b', n: 2, name: 'bob', tags: ['y'], profile: { city: 'Rome', age: 40 }, at: new Date(2000) },
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
        expect(await items.insertMany([{ _id: 'a' }, { n: 1 }])).toEqual(['a', expect.stringMatching(/^[0-9a-f]{24}$/)]);
        await expect(items.insertMany([{ _id: 'b' }, { _id: 'a' }, { _id: 'c' }])).rejects.toBeInstanceOf(DuplicateKeyError);
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
      const match = async (filter: Parameters<Collection<Item>['find']>[0]) => ids(await items.find(filter));

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
        expect(await match({ $and: [{ n: { $gt: 1 } }, { 'profile.city': 'Oslo' }] })).toEqual(['c']);
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
        expect((await items.find({}, { sort: { n: -1 } })).map((doc) => doc._id)).toEqual(['d', 'c', 'b', 'a']);
        expect((await items.find({}, { sort: { 'profile.city': 1, n: -1 } })).map((doc) => doc._id)).toEqual([
          'd',
          'c',
          'a',
          'b',
        ]);
      });
      test('skip and limit apply after the sort', async () => {
        expect((await items.find({}, { sort: { n: 1 }, skip: 1, limit: 2 })).map((doc) => doc._id)).toEqual(['b', 'c']);
        expect(await items.find({}, { sort: { n: 1 }, limit: 0 })).toHaveLength(4);
      });
      test('findOne honours sort', async () => {
        expect((await items.findOne({}, { sort: { n: -1 } }))?._id).toBe('d');
      });
      test('inclusion projection keeps _id unless excluded', async () => {
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, 'profile.city': 1 } })).toEqual({
          _id: 'a',
          n: 1,
          profile: { city: 'Oslo' },
        });
        expect(await items.findOne({ _id: 'a' }, { projection: { _id: 0, name: 1 } })).toEqual({ name: 'ann' });
      });
      test('exclusion projection', async () => {
        expect(await items.findOne({ _id: 'b' }, { projection: { tags: 0, profile: 0, at: 0 } })).toEqual({
          _id: 'b',
          n: 2,
          name: 'bob',
        });
      });
    });

    describe('updates', () => {
      test('$set (also creating dotted paths) and $unset', async () => {
        const items = await seeded();
        const result = await items.updateOne({ _id: 'a' }, { $set: { name: 'anna', 'profile.zip': '0150' }, $unset: { tags: '' } });
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
        expect(await items.updateOne({ _id: 'b' }, { $set: { n: 2 } })).toEqual({ matchedCount: 1, modifiedCount: 0 });
        expect(await items.updateOne({ _id: 'zz' }, { $set: { n: 2 } })).toEqual({ matchedCount: 0, modifiedCount: 0 });
      });

      test('$inc on existing and missing fields', async () => {
        const items = await seeded();
        await items.updateOne({ _id: 'a' }, { $inc: { n: 5, counter: 2 } });
        await items.updateOne({ _id: 'a' }, { $inc: { counter: -1 } });
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, counter: 1 } })).toEqual({ _id: 'a', n: 6, counter: 1 });
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
        await items.updateOne({ _id: 'p' }, { $push: { list: { $each: [1, 2, 3, 4], $slice: -2 } } });
        expect((await items.findOne({ _id: 'p' }))?.list).toEqual([3, 4]);
      });

      test('$pull by value and by condition', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', list: [1, 2, 3, 2, 5], items: [{ id: 1, v: 1 }, { id: 2, v: 2 }] });
        await items.updateOne({ _id: 'p' }, { $pull: { list: 2 } });
        await items.updateOne({ _id: 'p' }, { $pull: { list: { $gte: 5 }, items: { id: 1 } } });
        expect(await items.findOne({ _id: 'p' })).toEqual({ _id: 'p', list: [1, 3], items: [{ id: 2, v: 2 }] });
      });

      test('$addToSet adds only absent values, also with $each', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', tags: ['a'] });
        await items.updateOne({ _id: 'p' }, { $addToSet: { tags: 'a' } });
        await items.updateOne({ _id: 'p' }, { $addToSet: { tags: { $each: ['b', 'a', 'c', 'b'] } } });
        await items.insertOne({ _id: 'q' });
        await items.updateOne({ _id: 'q' }, { $addToSet: { tags: { $each: ['x', 'x', 'y'] } } });
        expect((await items.findOne({ _id: 'p' }))?.tags).toEqual(['a', 'b', 'c']);
        expect((await items.findOne({ _id: 'q' }))?.tags).toEqual(['x', 'y']);
      });

      test('the positional $ updates the array element the filter matched', async () => {
        const items = fresh();
        await items.insertOne({ _id: 'p', items: [{ id: 1, v: 1 }, { id: 2, v: 2 }] });
        await items.updateOne({ _id: 'p', 'items.id': 2 }, { $set: { 'items.$.v': 20 } });
        expect((await items.findOne({ _id: 'p' }))?.items).toEqual([{ id: 1, v: 1 }, { id: 2, v: 20 }]);
      });

      test('$setOnInsert is ignored when a document matched', async () => {
        const items = await seeded();
        await items.updateOne({ _id: 'a' }, { $set: { n: 10 }, $setOnInsert: { created: true } }, { upsert: true });
        expect(await items.findOne({ _id: 'a' }, { projection: { n: 1, created: 1 } })).toEqual({ _id: 'a', n: 10 });
      });

      test('upsert seeds the filter equalities, then applies $setOnInsert and the update', async () => {
        const items = fresh();
        const result = await items.updateOne(
          { login: 'zed', 'profile.city': 'Oslo', n: { $gt: 5 } },
          { $set: { name: 'Zed' }, $inc: { counter: 1 }, $setOnInsert: { created: true } },
          { upsert: true },
        );
        expect(result).toEqual({ matchedCount: 0, modifiedCount: 0, upsertedId: expect.stringMatching(/^[0-9a-f]{24}$/) });
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
        const result = await items.updateOne({ _id: 'fixed' }, { $set: { n: 1 } }, { upsert: true });
        expect(result.upsertedId).toBe('fixed');
        expect(await items.findOne({ _id: 'fixed' })).toEqual({ _id: 'fixed', n: 1 });
      });

      test('updateMany updates every match and upserts at most one', async () => {
        const items = await seeded();
        expect(await items.updateMany({ 'profile.city': 'Oslo' }, { $set: { tenant: 't1' } })).toEqual({
          matchedCount: 2,
          modifiedCount: 2,
        });
        expect(ids(await items.find({ tenant: 't1' }))).toEqual(['a', 'c']);
        const upserted = await items.updateMany({ tenant: 't9' }, { $set: { n: 9 } }, { upsert: true });
        expect(upserted.upsertedId).toEqual(expect.any(String));
        expect(await items.countDocuments({ tenant: 't9', n: 9 })).toBe(1);
      });

      test('an update without operators is rejected', async () => {
        const items = await seeded();
        await expect(items.updateOne({ _id: 'a' }, { n: 5 } as never)).rejects.toThrow();
        expect((await items.findOne({ _id: 'a' }))?.n).toBe(1);
      });
    });

    describe('findOneAndUpdate and findOneAndDelete', () => {
      test('returns the document before (default) or after the update', async () => {
        const items = await seeded();
        expect(await items.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } })).toMatchObject({ _id: 'a', n: 1 });
        expect(await items.findOneAndUpdate({ _id: 'a' }, { $inc: { n: 1 } }, { returnDocument: 'after' })).toMatchObject({
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
        expect(await items.findOneAndUpdate({ login: 'x' }, { $set: { n: 1 } }, { upsert: true })).toBeNull();
        const after = await items.findOneAndUpdate(
          { login: 'y' },
          { $inc: { counter: 1 } },
          { upsert: true, returnDocument: 'after' },
        );
        expect(after).toEqual({ _id: expect.stringMatching(/^[0-9a-f]{24}$/), login: 'y', counter: 1 });
        expect(await items.countDocuments({})).toBe(2);
      });

      test('findOneAndDelete removes and returns the first match in sort order', async () => {
        const items = await seeded();
        expect((await items.findOneAndDelete({ n: { $gte: 2 } }, { sort: { n: 1 } }))?._id).toBe('b');
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
        await store.ensureIndexes([{ collection, name: 'email_unique', key: { email: 1 }, unique: true }]);
        await store.ensureIndexes([{ collection, name: 'email_unique', key: { email: 1 }, unique: true }]);
        await items.insertOne({ _id: 'u1', email: 'a@x' });
        await items.insertOne({ _id: 'u2', email: 'b@x' });
        await expect(items.insertOne({ email: 'a@x' })).rejects.toMatchObject({ name: 'DuplicateKeyError', index: 'email_unique' });
        await expect(items.updateOne({ _id: 'u2' }, { $set: { email: 'a@x' } })).rejects.toBeInstanceOf(DuplicateKeyError);
        await expect(items.updateOne({ _id: 'u3' }, { $set: { email: 'b@x' } }, { upsert: true })).rejects.toBeInstanceOf(
          DuplicateKeyError,
        );
        expect(await items.findOne({ _id: 'u2' })).toEqual({ _id: 'u2', email: 'b@x' });
        expect(await items.countDocuments({})).toBe(2);
        await items.updateOne({ _id: 'u1' }, { $set: { email: 'c@x' } });
        await items.insertOne({ _id: 'u4', email: 'a@x' });
        expect((await items.findOne({ email: 'a@x' }))?._id).toBe('u4');
      });

      test('a missing field counts as null; a partial index leaves such documents out', async () => {
        const { name: plainName, items: plain } = freshNamed();
        await store.ensureIndexes([{ collection: plainName, name: 'login_unique', key: { login: 1 }, unique: true }]);
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
        await store.ensureIndexes([{ collection, name: 'tenant_login', key: { tenant: 1, login: 1 }, unique: true }]);
        await items.insertMany([
          { tenant: 't1', login: 'a' },
          { tenant: 't1', login: 'b' },
          { tenant: 't2', login: 'a' },
        ]);
        await expect(items.insertOne({ tenant: 't1', login: 'a' })).rejects.toMatchObject({ index: 'tenant_login', code: 11000 });
        expect(await items.countDocuments({ tenant: 't1', login: 'a' })).toBe(1);
      });

      test('creating a unique index over duplicates fails with DuplicateKeyError', async () => {
        const { name: collection, items } = freshNamed();
        await items.insertMany([{ email: 'same' }, { email: 'same' }]);
        await expect(
          store.ensureIndexes([{ collection, name: 'email_unique', key: { email: 1 }, unique: true }]),
        ).rejects.toBeInstanceOf(DuplicateKeyError);
      });
    });

    describe('TTL indexes', () => {
      test('expired documents disappear, others stay', async () => {
        const { name: collection, items } = freshNamed();
        await store.ensureIndexes([{ collection, name: 'expires', key: { expiresAt: 1 }, expireAfterSeconds: 0 }]);
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
        const after = await items.findOneAndUpdate({ _id: 'c' }, { $set: { n: 1 } }, { returnDocument: 'after' });
        after!.profile!.city = 'mutated';

        expect(await items.findOne({ _id: 'c' })).toEqual({ _id: 'c', tags: ['a'], profile: { city: 'Oslo' }, at: new Date(5), n: 1 });
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
