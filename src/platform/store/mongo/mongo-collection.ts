import type { Collection as DriverCollection, Filter, UpdateFilter } from 'mongodb';
import type {
  Collection,
  DeleteResult,
  Document,
  FindOneAndDeleteOptions,
  FindOneAndUpdateOptions,
  FindOneOptions,
  FindOptions,
  NewDocument,
  StoreFilter,
  StoreUpdate,
  UpdateOptions,
  UpdateResult,
} from '../document-store.js';
import { newId } from '../new-id.js';
import { mapMongoError } from './map-mongo-error.js';
import { withUpsertId } from './upsert-id.js';

/** What the driver sees: the port's typed documents, loosened to the driver's Document. */
export type RawDocument = { _id: string; [field: string]: unknown };
type RawFilter = Filter<RawDocument>;
type RawUpdate = UpdateFilter<RawDocument>;

/** Thin pass-through: the driver already has the semantics the port promises; only its errors are mapped. */
export class MongoCollection<T extends Document> implements Collection<T> {
  constructor(private readonly raw: DriverCollection<RawDocument>) {}

  async findOne(filter: StoreFilter<T>, options: FindOneOptions = {}): Promise<T | null> {
    return (await mapMongoError(() => this.raw.findOne(filter as RawFilter, options))) as T | null;
  }

  async find(filter: StoreFilter<T>, options: FindOptions = {}): Promise<T[]> {
    return (await mapMongoError(() =>
      this.raw.find(filter as RawFilter, options).toArray(),
    )) as unknown as T[];
  }

  countDocuments(filter: StoreFilter<T>): Promise<number> {
    return mapMongoError(() => this.raw.countDocuments(filter as RawFilter));
  }

  async insertOne(doc: NewDocument<T>): Promise<string> {
    const withId = withGeneratedId(doc);
    await mapMongoError(() => this.raw.insertOne(withId));
    return withId._id;
  }

  async insertMany(docs: NewDocument<T>[]): Promise<string[]> {
    if (docs.length === 0) return [];
    const withIds = docs.map(withGeneratedId);
    await mapMongoError(() => this.raw.insertMany(withIds, { ordered: true }));
    return withIds.map((doc) => doc._id);
  }

  updateOne(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    return this.update('one', filter, update, options);
  }

  updateMany(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions = {},
  ): Promise<UpdateResult> {
    return this.update('many', filter, update, options);
  }

  async findOneAndUpdate(
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: FindOneAndUpdateOptions = {},
  ): Promise<T | null> {
    const rawFilter = filter as RawFilter;
    const rawUpdate = (options.upsert ? withUpsertId(rawFilter, update) : update) as RawUpdate;
    const result = await mapMongoError(() =>
      this.raw.findOneAndUpdate(rawFilter, rawUpdate, { ...options, includeResultMetadata: false }),
    );
    return result as T | null;
  }

  async findOneAndDelete(
    filter: StoreFilter<T>,
    options: FindOneAndDeleteOptions = {},
  ): Promise<T | null> {
    return (await mapMongoError(() =>
      this.raw.findOneAndDelete(filter as RawFilter, options),
    )) as T | null;
  }

  async deleteOne(filter: StoreFilter<T>): Promise<DeleteResult> {
    const { deletedCount } = await mapMongoError(() => this.raw.deleteOne(filter as RawFilter));
    return { deletedCount };
  }

  async deleteMany(filter: StoreFilter<T>): Promise<DeleteResult> {
    const { deletedCount } = await mapMongoError(() => this.raw.deleteMany(filter as RawFilter));
    return { deletedCount };
  }

  private async update(
    kind: 'one' | 'many',
    filter: StoreFilter<T>,
    update: StoreUpdate<T>,
    options: UpdateOptions,
  ): Promise<UpdateResult> {
    const rawFilter = filter as RawFilter;
    const rawUpdate = (options.upsert ? withUpsertId(rawFilter, update) : update) as RawUpdate;
    const run =
      kind === 'one' ? this.raw.updateOne.bind(this.raw) : this.raw.updateMany.bind(this.raw);
    const result = await mapMongoError(() => run(rawFilter, rawUpdate, options));
    const { matchedCount, modifiedCount, upsertedId } = result;
    return upsertedId === null
      ? { matchedCount, modifiedCount }
      : { matchedCount, modifiedCount, upsertedId };
  }
}

/** The caller's object is left untouched (the driver would add `_id` to it). */
function withGeneratedId<T extends Document>(doc: NewDocument<T>): RawDocument {
  const { _id, ...fields } = doc;
  return { _id: _id ?? newId(), ...fields };
}
