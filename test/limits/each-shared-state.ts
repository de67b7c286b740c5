/**
 * Runs a suite once per SharedState implementation, as the shared-state contract does: in
 * memory always, on Redis when it answers (redis-for-tests.ts says when a missing Redis
 * fails the run instead of skipping).
 */
import { pino } from 'pino';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../src/platform/shared-state/memory-store.js';
import { openSharedState } from '../../src/platform/shared-state/open-shared-state.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

export const silent = pino({ level: 'silent' });

export interface Pods {
  /** Another pod: every instance opened shares one key space. */
  open(): Promise<SharedState>;
  /** Closes every instance and removes every key they wrote. */
  dispose(): Promise<void>;
}

export async function describeOnEachSharedState(
  title: string,
  define: (newPods: () => Pods) => void,
): Promise<void> {
  describe(`${title} (memory)`, () => define(memoryPods));
  await withRedis((url) => describe(`${title} (redis)`, () => define(() => redisPods(url))));
}

/** Shared state whose every command fails, as during a Redis outage. */
export function unreachableRedis(): Promise<SharedState> {
  return openSharedState({
    redisUrl: 'redis://127.0.0.1:1',
    keyPrefix: 'unreachable:',
    logger: silent,
  });
}

function memoryPods(): Pods {
  const store = new MemoryStore();
  return pods(
    async () => new MemorySharedState({ keyPrefix: 'limits:', logger: silent, store }),
    async () => undefined,
  );
}

function redisPods(url: string): Pods {
  const keyPrefix = uniqueTestPrefix('limits');
  return pods(
    () => openSharedState({ redisUrl: url, keyPrefix, logger: silent }),
    () => deleteKeys(url, keyPrefix),
  );
}

function pods(openOne: () => Promise<SharedState>, removeKeys: () => Promise<void>): Pods {
  const opened: SharedState[] = [];
  return {
    async open() {
      const state = await openOne();
      opened.push(state);
      return state;
    },
    async dispose() {
      await Promise.all(opened.map((state) => state.close()));
      await removeKeys();
    },
  };
}
