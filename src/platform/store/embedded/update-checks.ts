/**
 * What MongoDB's update driver refuses and mingo's updater silently skips or applies: the
 * engine checks these before mingo runs, so the embedded engine fails where MongoDB would, with
 * MongoDB's codes.
 */
import { refused } from '../store-command-error.js';

type Operators = Record<string, Record<string, unknown>>;

/**
 * Two operators (`$setOnInsert` included, even when nothing is inserted) on one path, or on a
 * path and its prefix: 40 ConflictingUpdateOperators, "Updating the path 'x' would create a
 * conflict at 'x'" (src/mongo/db/update/update_object_node.cpp).
 */
export function checkConflicts(operators: Operators): void {
  // Top-level paths clash only when equal: one Set rather than comparing every pair (the common case).
  const distinct = new Set<string>();
  let count = 0;
  let dotted = false;
  for (const operator of Object.keys(operators)) {
    for (const path of Object.keys(operators[operator]!)) {
      distinct.add(path);
      count += 1;
      dotted ||= path.includes('.');
    }
  }
  if (!dotted && distinct.size === count) return;
  const seen: string[] = [];
  for (const fields of Object.values(operators)) {
    for (const path of Object.keys(fields)) {
      const clash = seen.find(
        (other) => other === path || isPrefix(other, path) || isPrefix(path, other),
      );
      if (clash !== undefined) {
        throw refused(
          'ConflictingUpdateOperators',
          `Updating the path '${path}' would create a conflict at '${clash.length < path.length ? clash : path}'`,
        );
      }
      seen.push(path);
    }
  }
}

const NUMERIC_OPERATORS = ['$inc', '$mul'];
const ARRAY_OPERATORS = ['$push', '$addToSet', '$pull', '$pullAll', '$pop'];

/**
 * The fields an operator needs of a type have it (missing is fine: they are created):
 * `$inc`/`$mul` on a non-number is 14 TypeMismatch, the array operators on a non-array are 2
 * BadValue. Positional paths are left to mingo.
 */
export function checkTypes(doc: Record<string, unknown>, operators: Operators): void {
  for (const operator of NUMERIC_OPERATORS) {
    for (const path of plainPaths(operators[operator])) {
      const value = valueAt(doc, path);
      if (value !== undefined && !isNumeric(value)) {
        throw refused(
          'TypeMismatch',
          `Cannot apply ${operator} to a value of non-numeric type. {_id: ${JSON.stringify(doc._id)}} has the field '${path}' of non-numeric type ${typeName(value)}`,
        );
      }
    }
  }
  for (const operator of ARRAY_OPERATORS) {
    for (const path of plainPaths(operators[operator])) {
      const value = valueAt(doc, path);
      if (value !== undefined && !Array.isArray(value)) {
        throw refused(
          'BadValue',
          `Cannot apply ${operator} to a non-array field. Field named '${path}' has non-array type ${typeName(value)}`,
        );
      }
    }
  }
}

/** `_id` never changes: 66 ImmutableField, also when an upsert's `$setOnInsert` names another id than its filter. */
export function checkIdUnchanged(id: unknown, newId: unknown): void {
  if (newId !== undefined && id !== undefined && newId !== id) {
    throw refused(
      'ImmutableField',
      "Performing an update on the path '_id' would modify the immutable field '_id'",
    );
  }
}

function isPrefix(prefix: string, path: string): boolean {
  return path.startsWith(`${prefix}.`);
}

function plainPaths(fields: Record<string, unknown> | undefined): string[] {
  return Object.keys(fields ?? {}).filter((path) => !path.split('.').includes('$'));
}

function valueAt(doc: unknown, path: string): unknown {
  let value = doc;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

function isNumeric(value: unknown): boolean {
  if (typeof value === 'number' || typeof value === 'bigint') return true;
  const bsonType = (value as { _bsontype?: unknown } | null)?._bsontype;
  return (
    bsonType === 'Long' ||
    bsonType === 'Double' ||
    bsonType === 'Int32' ||
    bsonType === 'Decimal128'
  );
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (value instanceof Date) return 'date';
  return typeof value === 'object' ? 'object' : typeof value;
}
