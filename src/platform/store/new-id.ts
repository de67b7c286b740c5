import { ObjectId } from 'bson';

/** Generated ids look like MongoDB's (24 hex, time-ordered) but are stored as strings. */
export function newId(): string {
  return new ObjectId().toHexString();
}
