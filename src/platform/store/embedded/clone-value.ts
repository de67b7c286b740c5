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
  // `new Uint8Array(view)` copies natively; `Uint8Array.from` walks the bytes one by one.
  if (value instanceof Uint8Array) return new Binary(new Uint8Array(value));
  if (value instanceof Binary)
    return new Binary(new Uint8Array(value.buffer.subarray(0, value.position)), value.sub_type);
  if (value instanceof RegExp || isBsonValue(value)) return value; // immutable
  const copy: Record<string, unknown> = {};
  const fields = value as Record<string, unknown>;
  for (const key of Object.keys(fields)) {
    const field = fields[key];
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
