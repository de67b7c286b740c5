/**
 * MongoDB's sort order, which mingo's differs from in three ways that matter here: strings
 * compare by their UTF-8 bytes (MongoDB's simple collation; JavaScript compares UTF-16 units,
 * which puts U+10000 and above before U+E000..U+FFFF), values of different types order by
 * BSON type (null < numbers < strings < objects < arrays < binary < ObjectId < booleans <
 * dates < timestamps < regexes), and an array sorts by its smallest element ascending and its
 * largest descending (docs: "Sort Order"; src/mongo/db/query/sort_key_generator.cpp).
 */
import type { SortSpec } from '../document-store.js';
import { indexedValues } from './index-keys.js';

export function sortDocuments<T>(docs: T[], sort: SortSpec): T[] {
  const fields = Object.entries(sort);
  const keyed = docs.map((doc) => ({
    doc,
    keys: fields.map(([path, direction]) => sortKey(doc, path, direction)),
  }));
  keyed.sort((a, b) => {
    for (let i = 0; i < fields.length; i += 1) {
      const order = compareValues(a.keys[i], b.keys[i]) * (fields[i]?.[1] ?? 1);
      if (order !== 0) return order;
    }
    return 0; // Array.prototype.sort is stable: ties keep the order they were found in
  });
  return keyed.map(({ doc }) => doc);
}

/** The value a document sorts by on `path`: through arrays, the smallest (1) or largest (-1). */
function sortKey(doc: unknown, path: string, direction: 1 | -1): unknown {
  const values = indexedValues(doc, path, false);
  let key = values[0];
  for (const value of values.slice(1)) {
    if (compareValues(value, key) * direction < 0) key = value;
  }
  return key;
}

export function compareValues(a: unknown, b: unknown): number {
  const rankA = typeRank(a);
  const rankB = typeRank(b);
  if (rankA !== rankB) return rankA - rankB;
  switch (rankA) {
    case TypeRank.Null:
      return 0;
    case TypeRank.Number:
      return Math.sign(Number(a) - Number(b));
    case TypeRank.String:
      return compareUtf8(a as string, b as string);
    case TypeRank.Object:
      return compareObjects(a as Record<string, unknown>, b as Record<string, unknown>);
    case TypeRank.Array:
      return compareSequences(a as unknown[], b as unknown[]);
    case TypeRank.Binary:
      return compareBinary(bytesOf(a), bytesOf(b));
    case TypeRank.ObjectId:
      return compareUtf8(String(a), String(b));
    case TypeRank.Boolean:
      return Number(a) - Number(b);
    case TypeRank.Date:
      return Math.sign((a as Date).getTime() - (b as Date).getTime());
    default:
      return compareUtf8(String(a), String(b));
  }
}

enum TypeRank {
  Null = 1,
  Number,
  String,
  Object,
  Array,
  Binary,
  ObjectId,
  Boolean,
  Date,
  Timestamp,
  RegExp,
}

const NUMERIC_BSON_TYPES = new Set(['Long', 'Double', 'Int32', 'Decimal128']);

function typeRank(value: unknown): TypeRank {
  if (value === null || value === undefined) return TypeRank.Null;
  if (typeof value === 'number' || typeof value === 'bigint') return TypeRank.Number;
  if (typeof value === 'string') return TypeRank.String;
  if (typeof value === 'boolean') return TypeRank.Boolean;
  if (Array.isArray(value)) return TypeRank.Array;
  if (value instanceof Date) return TypeRank.Date;
  if (value instanceof RegExp) return TypeRank.RegExp;
  if (value instanceof Uint8Array) return TypeRank.Binary;
  const bsonType = (value as { _bsontype?: unknown })._bsontype;
  if (typeof bsonType === 'string') {
    if (NUMERIC_BSON_TYPES.has(bsonType)) return TypeRank.Number;
    if (bsonType === 'Binary') return TypeRank.Binary;
    if (bsonType === 'ObjectId') return TypeRank.ObjectId;
    if (bsonType === 'Timestamp') return TypeRank.Timestamp;
  }
  return TypeRank.Object;
}

/**
 * Code point order, which is UTF-8 byte order. Surrogates (0xD800..0xDFFF) stand for code points
 * above 0xFFFF, so at the first difference they are moved above 0xE000..0xFFFF.
 */
function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i += 1) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

/** Field by field: the value's type, then the field name, then the value (BSONObj::woCompare). */
function compareObjects(a: Record<string, unknown>, b: Record<string, unknown>): number {
  const entriesA = Object.entries(a);
  const entriesB = Object.entries(b);
  for (let i = 0; i < Math.min(entriesA.length, entriesB.length); i += 1) {
    const [nameA, valueA] = entriesA[i] as [string, unknown];
    const [nameB, valueB] = entriesB[i] as [string, unknown];
    const order =
      typeRank(valueA) - typeRank(valueB) ||
      compareUtf8(nameA, nameB) ||
      compareValues(valueA, valueB);
    if (order !== 0) return order;
  }
  return entriesA.length - entriesB.length;
}

function compareSequences(a: unknown[], b: unknown[]): number {
  for (let i = 0; i < Math.min(a.length, b.length); i += 1) {
    const order = compareValues(a[i], b[i]);
    if (order !== 0) return order;
  }
  return a.length - b.length;
}

/** Shorter first, then by subtype, then byte by byte. */
function compareBinary(
  a: { bytes: Uint8Array; subtype: number },
  b: { bytes: Uint8Array; subtype: number },
): number {
  if (a.bytes.length !== b.bytes.length) return a.bytes.length - b.bytes.length;
  if (a.subtype !== b.subtype) return a.subtype - b.subtype;
  for (let i = 0; i < a.bytes.length; i += 1) {
    const order = (a.bytes[i] as number) - (b.bytes[i] as number);
    if (order !== 0) return order;
  }
  return 0;
}

function bytesOf(value: unknown): { bytes: Uint8Array; subtype: number } {
  if (value instanceof Uint8Array) return { bytes: value, subtype: 0 };
  const binary = value as { value(): Uint8Array; sub_type: number };
  return { bytes: binary.value(), subtype: binary.sub_type };
}
