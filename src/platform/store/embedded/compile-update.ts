import * as mingoOperators from 'mingo/operators/update';
import { update as applyOperators } from 'mingo/updater';
import { resolve, setValue, unique } from 'mingo/util';
import { newId } from '../new-id.js';
import { cloneDocument, cloneValue } from './clone-value.js';
import { applyPlainUpdate } from './plain-update.js';
import type { StoredDocument } from './stored-document.js';
import { checkConflicts, checkIdUnchanged, checkTypes } from './update-checks.js';
import { upsertSeed } from './upsert-seed.js';

type Operators = Record<string, Record<string, unknown>>;

const KNOWN_OPERATORS = new Set([...Object.keys(mingoOperators), '$setOnInsert']);

export interface CompiledUpdate {
  /**
   * A changed copy of `doc` (never `doc` itself), and whether anything changed. An update of
   * top-level fields only also says which (`changedFields`), and its copy shares the untouched
   * fields' values with `doc`: stored documents are never mutated, only replaced.
   */
  applyTo(
    doc: StoredDocument,
    filter: Record<string, unknown>,
  ): { doc: StoredDocument; modified: boolean; changedFields?: string[] };
  /** The document an upsert inserts when nothing matched `filter`. */
  insertFor(filter: Record<string, unknown>): StoredDocument;
}

/**
 * Validates an update document once (MongoDB rejects a bad update even when nothing
 * matches) and applies it with mingo's updater, which knows every operator except
 * `$setOnInsert`; that one is handled here, as are the refusals mingo does not make
 * (update-checks.ts) and two places where mingo's results differ from MongoDB's (see
 * patchForMingo).
 */
export function compileUpdate(update: Record<string, unknown>): CompiledUpdate {
  const keys = Object.keys(update);
  if (keys.length === 0 || !keys.every((key) => key.startsWith('$'))) {
    throw new Error('Update document requires atomic operators');
  }
  const unsupported = keys.find((key) => !KNOWN_OPERATORS.has(key));
  if (unsupported) throw new Error(`Unknown update operator: ${unsupported}`);
  // Not copied: the update is applied synchronously within the write, and what it puts into a
  // document is copied there (plain-update.ts; mingo deep-copies; patchForMingo works on a copy).
  const all = update as Operators;
  checkConflicts(all);
  const { $setOnInsert, ...operators } = all;
  const present = withFields(operators);

  return {
    applyTo(doc, filter) {
      checkIdUnchanged(doc._id, operators.$set?._id);
      checkTypes(doc, operators);
      const shallow = { ...doc };
      const changedFields = applyPlainUpdate(shallow, present);
      if (changedFields) return { doc: shallow, modified: changedFields.length > 0, changedFields };
      const next = cloneDocument(doc);
      const modified = run(next, present, filter).length > 0;
      return { doc: next, modified };
    },
    insertFor(filter) {
      const onInsert: Operators = $setOnInsert
        ? { ...operators, $set: { ...operators.$set, ...$setOnInsert } }
        : operators;
      // `_id` may come from the filter or from `$setOnInsert`; mingo refuses to $set it.
      const { _id: seedId, ...seed } = upsertSeed(filter);
      const { _id: setId, ...set } = onInsert.$set ?? {};
      checkIdUnchanged(seedId, setId);
      checkTypes(seed, onInsert);
      const _id = [seedId, setId].find((id): id is string => typeof id === 'string') ?? newId();
      const doc = { _id, ...seed };
      run(doc, withFields({ ...onInsert, $set: set }), undefined);
      return doc;
    },
  };
}

/** The operators that name at least one field (`{$set: {}}` changes nothing). */
function withFields(operators: Operators): Operators {
  return Object.fromEntries(
    Object.entries(operators).filter(([, fields]) => Object.keys(fields).length > 0),
  );
}

/**
 * Mutates `doc` by `present` (withFields); returns the modified paths. The filter is needed
 * only by the positional `$`.
 */
function run(
  doc: Record<string, unknown>,
  present: Operators,
  filter: Record<string, unknown> | undefined,
): string[] {
  if (Object.keys(present).length === 0) return [];
  const plain = applyPlainUpdate(doc, present);
  if (plain) return plain;
  const operators = cloneValue(present) as Operators;
  patchForMingo(doc, operators);
  const condition = filter && usesPositional(operators) ? filter : undefined;
  return applyOperators(doc, operators, undefined, condition, { cloneMode: 'deep' });
}

/**
 * mingo 7 creates a missing array from `$push`'s `$each` ignoring `$slice`/`$sort`/`$position`,
 * and from `$addToSet`'s `$each` without removing duplicates. Starting the array empty and
 * de-duplicating `$each` gives MongoDB's results.
 */
function patchForMingo(doc: Record<string, unknown>, operators: Operators): void {
  for (const [path, spec] of Object.entries(operators.$push ?? {})) {
    if (hasModifiers(spec) && !path.includes('$') && resolve(doc, path) === undefined)
      setValue(doc, path, []);
  }
  for (const spec of Object.values(operators.$addToSet ?? {})) {
    if (isEachSpec(spec)) spec.$each = unique(spec.$each);
  }
}

function hasModifiers(spec: unknown): boolean {
  return isEachSpec(spec) && ('$slice' in spec || '$sort' in spec || '$position' in spec);
}

function isEachSpec(spec: unknown): spec is { $each: unknown[] } & Record<string, unknown> {
  return (
    typeof spec === 'object' && spec !== null && Array.isArray((spec as { $each?: unknown }).$each)
  );
}

function usesPositional(operators: Operators): boolean {
  return Object.values(operators).some((fields) =>
    Object.keys(fields).some((path) => /\.\$(\.|$)/.test(path)),
  );
}
