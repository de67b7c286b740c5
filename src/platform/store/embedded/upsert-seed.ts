import { setValue } from 'mingo/util';
import { isOperatorObject } from '../operator-object.js';
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
