/** The MongoDB implementation's own logic, checked without a server. */
import { MongoBulkWriteError, MongoServerError } from 'mongodb';
import { DuplicateKeyError } from '../../../../src/platform/store/document-store.js';
import { mapMongoError } from '../../../../src/platform/store/mongo/map-mongo-error.js';
import { withUpsertId } from '../../../../src/platform/store/mongo/upsert-id.js';

const duplicate = {
  code: 11000,
  errmsg: 'E11000 duplicate key error collection: app.users index: email_unique dup key: { email: "a@x" }',
};

describe('mapMongoError', () => {
  test('turns the server duplicate-key error into DuplicateKeyError with the index name', async () => {
    const error = await mapMongoError(() => Promise.reject(new MongoServerError(duplicate))).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'email_unique', code: 11000 });
    expect((error as DuplicateKeyError).cause).toBeInstanceOf(MongoServerError);
  });

  test('also for an ordered insertMany (bulk write error)', async () => {
    const bulk = new MongoBulkWriteError({ message: duplicate.errmsg, code: 11000, writeErrors: [] }, {} as never);
    await expect(mapMongoError(() => Promise.reject(bulk))).rejects.toMatchObject({ index: 'email_unique' });
  });

  test('leaves other errors alone', async () => {
    const other = new MongoServerError({ code: 2, errmsg: 'bad value' });
    await expect(mapMongoError(() => Promise.reject(other))).rejects.toBe(other);
  });
});

describe('withUpsertId', () => {
  test('gives an upsert without a pinned _id a generated string id', () => {
    const update = withUpsertId({ login: 'x' }, { $set: { n: 1 }, $setOnInsert: { created: true } });
    expect(update).toEqual({
      $set: { n: 1 },
      $setOnInsert: { created: true, _id: expect.stringMatching(/^[0-9a-f]{24}$/) },
    });
  });

  test('leaves the update alone when the filter or $setOnInsert decides the id', () => {
    const update = { $set: { n: 1 } };
    expect(withUpsertId({ _id: 'x' }, update)).toBe(update);
    expect(withUpsertId({ _id: { $eq: 'x' } }, update)).toBe(update);
    const chosen = { $setOnInsert: { _id: 'mine' } };
    expect(withUpsertId({ login: 'x' }, chosen)).toBe(chosen);
  });
});
