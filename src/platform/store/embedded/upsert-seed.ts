import { setValue } from 'mingo/util';
import { cloneValue } from './clone-value.js';

/**
 * The document an upsert starts from, as MongoDB builds it: every field the filter pins by
 * equality (`field: value` or `field: {$eq: value}`, also inside `$and`), before the update
 * operators and `$setOnInsert` are applied.
 */
export function upsertSeed(filter: Record<string, unknown>): Record<string, unknown> {
  const seed: Record<string, unknown> = {};
  addEqualities(filter, seed);
  return seed;
}

function addEqualities(filter: Record<string, unknown>, seed: Record<string, unknown>): void {
  for (const [path, condition] of Object.entries(filter)) {
    if (path === '$and' && Array.isArray(condition)) {
      for (const clause of condition) addEqualities(clause as Record<string, unknown>, seed);
      continue;
    }
    if (path.startsWith('$') || condition instanceof RegExp) continue;
    if (!isOperatorObject(condition)) setValue(seed, path, cloneValue(condition));
    else if ('$eq' in condition) setValue(seed, path, cloneValue(condition.$eq));
  }
}

function isOperatorObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Date) return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}
