/**
 * A DocumentStore that passes every call through and notes the filter (and sort) of every
 * query and conditional write, so a test can run real code paths and then ask the store how
 * it would answer each of them (`DocumentStore.explain`).
 */
import type {
  Collection,
  Document,
  DocumentStore,
  SortSpec,
} from '../../src/platform/store/document-store.js';

export interface RecordedQuery {
  collection: string;
  method: string;
  filter: Record<string, unknown>;
  sort?: SortSpec;
}

const FILTERED = new Set([
  'findOne',
  'find',
  'countDocuments',
  'updateOne',
  'updateMany',
  'findOneAndUpdate',
  'findOneAndDelete',
  'deleteOne',
  'deleteMany',
]);
const WITH_SORT_IN_OPTIONS: Record<string, number> = {
  findOne: 1,
  find: 1,
  findOneAndDelete: 1,
  findOneAndUpdate: 2,
};

export function recordingStore(store: DocumentStore): {
  store: DocumentStore;
  queries: RecordedQuery[];
} {
  const queries: RecordedQuery[] = [];
  const recording: DocumentStore = {
    collection<T extends Document>(name: string): Collection<T> {
      const inner = store.collection<T>(name);
      return new Proxy(inner, {
        get(target, property, receiver) {
          const value = Reflect.get(target, property, receiver) as unknown;
          if (
            typeof property !== 'string' ||
            !FILTERED.has(property) ||
            typeof value !== 'function'
          )
            return value;
          return (...args: unknown[]) => {
            const optionsAt = WITH_SORT_IN_OPTIONS[property];
            const sort =
              optionsAt === undefined
                ? undefined
                : (args[optionsAt] as { sort?: SortSpec } | undefined)?.sort;
            queries.push({
              collection: name,
              method: property,
              filter: args[0] as Record<string, unknown>,
              ...(sort ? { sort } : {}),
            });
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
        },
      });
    },
    ensureIndexes: (indexes) => store.ensureIndexes(indexes),
    explain: (collection, filter, options) => store.explain(collection, filter, options),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { store: recording, queries };
}
