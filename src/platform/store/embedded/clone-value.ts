import { Binary } from 'bson';

/**
 * A deep copy in the form the MongoDB driver would read the value back: `undefined` becomes
 * null (the driver's default `ignoreUndefined: false`), bytes become `Binary`, functions are
 * dropped. Used on everything entering the store (so callers keep ownership of their objects)
 * and on everything leaving it (so mutating a result never changes stored data).
 */
export function cloneValue(value: unknown): unknown {
  if (value === undefined) return null;
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(cloneValue);
  if (value instanceof Date) return new Date(value.getTime());
  if (value instanceof Uint8Array) return new Binary(Uint8Array.from(value));
  if (value instanceof Binary) return new Binary(Uint8Array.from(value.value()), value.sub_type);
  if (value instanceof RegExp || isBsonValue(value)) return value; // immutable
  const copy: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (typeof field !== 'function') copy[key] = cloneValue(field);
  }
  return copy;
}

export function cloneDocument<T>(doc: T): T {
  return cloneValue(doc) as T;
}

/** ObjectId, Long, Decimal128, Timestamp, ... (checked by tag: the driver may bundle its own bson copy). */
function isBsonValue(value: object): boolean {
  return typeof (value as { _bsontype?: unknown })._bsontype === 'string';
}
