/** The MongoDB implementation's own logic, checked without a server. */
import { MongoBulkWriteError, MongoClient, MongoNetworkError, MongoServerError } from 'mongodb';
import { DependencyUnavailableError } from '../../../../src/platform/errors/dependency-unavailable.js';
import {
  MongoCollection,
  type RawDocument,
} from '../../../../src/platform/store/mongo/mongo-collection.js';
import { freePort } from '../../../support/ports.js';
import { DuplicateKeyError } from '../../../../src/platform/store/document-store.js';
import {
  IndexConflictError,
  type IndexSpec,
} from '../../../../src/platform/store/document-store.js';
import { planFromExplain } from '../../../../src/platform/store/mongo/explain-plan.js';
import {
  mapIndexConflict,
  mapMongoError,
} from '../../../../src/platform/store/mongo/map-mongo-error.js';
import { withDatabase } from '../../../support/stores-under-test.js';
import { withUpsertId } from '../../../../src/platform/store/mongo/upsert-id.js';

const duplicate = {
  code: 11000,
  errmsg:
    'E11000 duplicate key error collection: app.users index: email_unique dup key: { email: "a@x" }',
};

describe('mapMongoError', () => {
  test('turns the server duplicate-key error into DuplicateKeyError with the index name', async () => {
    const error = await mapMongoError(() => Promise.reject(new MongoServerError(duplicate))).catch(
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(DuplicateKeyError);
    expect(error).toMatchObject({ index: 'email_unique', code: 11000 });
    expect((error as DuplicateKeyError).cause).toBeInstanceOf(MongoServerError);
  });

  test('also for an ordered insertMany (bulk write error)', async () => {
    const bulk = new MongoBulkWriteError(
      { message: duplicate.errmsg, code: 11000, writeErrors: [] },
      {} as never,
    );
    await expect(mapMongoError(() => Promise.reject(bulk))).rejects.toMatchObject({
      index: 'email_unique',
    });
  });

  test('turns a dropped connection into DependencyUnavailableError (503 with Retry-After)', async () => {
    const dropped = new MongoNetworkError('connection 3 to 10.0.0.5:27017 closed');
    const error = await mapMongoError(() => Promise.reject(dropped)).catch((err: unknown) => err);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(error).toMatchObject({ dependency: 'mongodb' });
    expect((error as Error).cause).toBe(dropped);
  });

  test('and a failover the driver could not retry through (RetryableWriteError label)', async () => {
    const steppedDown = new MongoServerError({
      code: 189,
      errmsg: 'Primary stepped down while waiting for replication',
    });
    steppedDown.addErrorLabel('RetryableWriteError');
    await expect(mapMongoError(() => Promise.reject(steppedDown))).rejects.toBeInstanceOf(
      DependencyUnavailableError,
    );
  });

  test('every collection call against an unreachable server ends in DependencyUnavailableError', async () => {
    const port = await freePort();
    type Thing = { _id: string; n?: number };
    const calls: Array<(collection: MongoCollection<Thing>) => Promise<unknown>> = [
      (c) => c.findOne({ _id: 'a' }),
      (c) => c.find({}),
      (c) => c.countDocuments({}),
      (c) => c.insertOne({ n: 1 }),
      (c) => c.updateOne({ _id: 'a' }, { $set: { n: 2 } }),
      (c) => c.findOneAndUpdate({ _id: 'a' }, { $set: { n: 2 } }),
      (c) => c.findOneAndDelete({ _id: 'a' }),
      (c) => c.deleteOne({ _id: 'a' }),
      (c) => c.deleteMany({}),
    ];
    // One client per call: a client whose first server selection failed closes its topology.
    for (const call of calls) {
      const client = new MongoClient(
        `mongodb://127.0.0.1:${port}/?serverSelectionTimeoutMS=150&directConnection=true`,
      );
      try {
        await expect(
          call(new MongoCollection<Thing>(client.db('outage').collection<RawDocument>('things'))),
        ).rejects.toBeInstanceOf(DependencyUnavailableError);
      } finally {
        await client.close();
      }
    }
  });

  test('leaves other errors alone', async () => {
    const other = new MongoServerError({ code: 2, errmsg: 'bad value' });
    await expect(mapMongoError(() => Promise.reject(other))).rejects.toBe(other);
  });
});

describe('withUpsertId', () => {
  test('gives an upsert without a pinned _id a generated string id', () => {
    const update = withUpsertId(
      { login: 'x' },
      { $set: { n: 1 }, $setOnInsert: { created: true } },
    );
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

describe('mapIndexConflict', () => {
  const spec: IndexSpec = {
    collection: 'messages',
    name: 'idempotency_key',
    key: { senderAddress: 1 },
  };

  test.each([
    [85, 'IndexOptionsConflict', 'Index already exists with a different name: sender_1'],
    [86, 'IndexKeySpecsConflict', 'An existing index has the same name as the requested index.'],
  ])(
    'turns code %i into an IndexConflictError that says what to do',
    async (code, codeName, errmsg) => {
      const error = await mapIndexConflict(spec, () =>
        Promise.reject(new MongoServerError({ code, codeName, errmsg })),
      ).catch((err: unknown) => err);
      expect(error).toBeInstanceOf(IndexConflictError);
      expect(error).toMatchObject({
        code,
        codeName,
        collection: 'messages',
        index: 'idempotency_key',
      });
      expect((error as Error).message).toContain(errmsg);
      expect((error as Error).message).toContain('declare the changed index under a new name');
    },
  );
});

/** Shapes of `explain('queryPlanner')` as the server prints them (classic and slot-based engines). */
describe('planFromExplain', () => {
  test('an index scan under FETCH and LIMIT', () => {
    const explained = {
      queryPlanner: {
        winningPlan: {
          stage: 'LIMIT',
          inputStage: {
            stage: 'FETCH',
            inputStage: { stage: 'IXSCAN', indexName: 'conversation_sequence' },
          },
        },
      },
    };
    expect(planFromExplain(explained)).toEqual({
      stage: 'IXSCAN',
      indexes: ['conversation_sequence'],
    });
  });

  test('the slot-based engine nests the plan under queryPlan', () => {
    const explained = {
      queryPlanner: {
        winningPlan: {
          queryPlan: { stage: 'FETCH', inputStage: { stage: 'IXSCAN', indexName: 'chat_list' } },
          slotBasedPlan: {},
        },
      },
    };
    expect(planFromExplain(explained)).toEqual({ stage: 'IXSCAN', indexes: ['chat_list'] });
  });

  test('a $or answered clause by clause, and the _id fast paths', () => {
    const or = {
      queryPlanner: {
        winningPlan: {
          stage: 'FETCH',
          inputStage: {
            stage: 'OR',
            inputStages: [
              { stage: 'IXSCAN', indexName: 'a_1' },
              { stage: 'IXSCAN', indexName: 'b_1' },
            ],
          },
        },
      },
    };
    expect(planFromExplain(or)).toEqual({ stage: 'IXSCAN', indexes: ['a_1', 'b_1'] });
    expect(planFromExplain({ queryPlanner: { winningPlan: { stage: 'IDHACK' } } })).toEqual({
      stage: 'IXSCAN',
      indexes: ['_id_'],
    });
    expect(
      planFromExplain({
        queryPlanner: { winningPlan: { stage: 'EXPRESS_IXSCAN', keyPattern: '{ _id: 1 }' } },
      }),
    ).toEqual({ stage: 'IXSCAN', indexes: ['_id_'] });
  });

  test('a collection scan anywhere is a COLLSCAN', () => {
    const explained = {
      queryPlanner: {
        winningPlan: {
          stage: 'SUBPLAN',
          inputStage: {
            stage: 'OR',
            inputStages: [{ stage: 'IXSCAN', indexName: 'a_1' }, { stage: 'COLLSCAN' }],
          },
        },
      },
    };
    expect(planFromExplain(explained)).toEqual({ stage: 'COLLSCAN', indexes: [] });
    expect(
      planFromExplain({ queryPlanner: { winningPlan: { stage: 'COLLSCAN', filter: {} } } }),
    ).toEqual({ stage: 'COLLSCAN', indexes: [] });
  });
});

describe('withDatabase (how the MongoDB test runs make their own database)', () => {
  test('keeps every host and option of a replica-set URL', () => {
    expect(
      withDatabase(
        'mongodb://u:p%40w@h1:27017,h2:27017,h3:27017/app?replicaSet=rs0&tls=true',
        'run_1',
      ),
    ).toBe('mongodb://u:p%40w@h1:27017,h2:27017,h3:27017/run_1?replicaSet=rs0&tls=true');
    expect(withDatabase('mongodb+srv://cluster0.example.net/app?retryWrites=true', 'run_2')).toBe(
      'mongodb+srv://cluster0.example.net/run_2?retryWrites=true',
    );
  });
});
