/**
 * One contract, both implementations: in memory always, on Redis when it answers
 * (REDIS_URL, default redis://127.0.0.1:6379; see redis-for-tests.ts for when a missing
 * Redis fails the run rather than skipping), and on a private three-master Redis Cluster
 * (REDIS_CLUSTER=true: sharded pub/sub, keys and scripts routed to their slot's shard).
 */
import { pino } from 'pino';
import { MemorySharedState } from '../../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../../src/platform/shared-state/memory-store.js';
import { openSharedState } from '../../../src/platform/shared-state/open-shared-state.js';
import type { SharedState } from '../../../src/platform/shared-state/shared-state.js';
import { describeSharedStateContract } from './shared-state-contract.js';
import type { SharedStateHarness } from './shared-state-contract.js';
import { startPrivateRedisCluster } from '../../support/private-redis-cluster.js';
import type { PrivateRedisCluster } from '../../support/private-redis-cluster.js';
import { deleteKeys, uniqueTestPrefix, withRedis } from './redis-for-tests.js';

const logger = pino({ level: 'silent' });

/** Instances over one MemoryStore behave like pods over one Redis. */
function memoryHarness(): SharedStateHarness {
  const store = new MemoryStore();
  const opened: SharedState[] = [];
  return {
    async open(keyPrefix) {
      const state = new MemorySharedState({ keyPrefix, logger, store });
      opened.push(state);
      return state;
    },
    async dispose() {
      await Promise.all(opened.map((state) => state.close()));
    },
  };
}

/** Opens through openSharedState, the way the service does, under a prefix unique to this run. */
function redisHarness(url: string): SharedStateHarness {
  const runPrefix = uniqueTestPrefix('shared-state-contract');
  const opened: SharedState[] = [];
  return {
    async open(keyPrefix) {
      const state = await openSharedState({
        redisUrl: url,
        keyPrefix: runPrefix + keyPrefix,
        logger,
      });
      opened.push(state);
      return state;
    },
    async dispose() {
      await Promise.all(opened.map((state) => state.close()));
      await deleteKeys(url, runPrefix);
    },
  };
}

/** A cluster of the file's own, started for the first instance and gone with the harness. */
function redisClusterHarness(): SharedStateHarness {
  let cluster: Promise<PrivateRedisCluster> | undefined;
  const opened: SharedState[] = [];
  return {
    async open(keyPrefix) {
      cluster ??= startPrivateRedisCluster();
      const state = await openSharedState({
        redisUrl: (await cluster).url,
        redisCluster: true,
        keyPrefix,
        logger,
      });
      opened.push(state);
      return state;
    },
    async dispose() {
      await Promise.all(opened.map((state) => state.close()));
      await (await cluster)?.dispose();
    },
  };
}

describeSharedStateContract('memory', memoryHarness);

describeSharedStateContract('redis cluster', redisClusterHarness);

await withRedis((url) => describeSharedStateContract('redis', () => redisHarness(url)));
