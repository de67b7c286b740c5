import type { Document as MongoDocument } from 'mongodb';
import { newId } from '../new-id.js';

/**
 * Left alone, the server gives an upserted document an ObjectId `_id`; the port promises
 * strings, so an upsert whose filter does not pin `_id` gets a generated one on insert.
 */
export function withUpsertId(filter: MongoDocument, update: MongoDocument): MongoDocument {
  const setOnInsert = (update.$setOnInsert ?? {}) as MongoDocument;
  if (pinsId(filter) || '_id' in setOnInsert) return update;
  return { ...update, $setOnInsert: { ...setOnInsert, _id: newId() } };
}

/** An equality on `_id` seeds the inserted document's id on the server itself. */
function pinsId(filter: MongoDocument): boolean {
  const id: unknown = filter._id;
  if (typeof id === 'string') return true;
  return typeof id === 'object' && id !== null && '$eq' in id;
}
