/**
 * The push work queue on every shared-state shape (in memory, on the real Redis when it answers,
 * on a private three-master Redis Cluster): two "pods" claiming at once take each job once; a leased job is invisible
 * until its lease runs out and then due again (a pod that died mid-job loses nothing), also one
 * queued already leased (a wake job's deliveries, sent at once by the pod that queued them); a retry
 * waits until its due time; the statistics see waiting and leased jobs.
 */
import { pino } from 'pino';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { MemoryStore } from '../../src/platform/shared-state/memory-store.js';
import { openSharedState } from '../../src/platform/shared-state/open-shared-state.js';
import type { SharedState } from '../../src/platform/shared-state/shared-state.js';
import { PushQueue, QUEUE_KEYS, QUEUE_PARTS } from '../../src/push/delivery/push-queue.js';
import { startPrivateRedisCluster } from '../support/private-redis-cluster.js';
import type { PrivateRedisCluster } from '../support/private-redis-cluster.js';
import type { DeliveryJob, WakeJob } from '../../src/push/delivery/push-queue.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { defineScript } from '../../src/platform/shared-state/shared-state.js';
import {
  deleteKeys,
  uniqueTestPrefix,
  withRedis,
} from '../platform/shared-state/redis-for-tests.js';

const logger = pino({ level: 'silent' });

const delivery = (n: number): Omit<DeliveryJob, 'id'> => ({
  type: 'deliver',
  subscriptionId: `sub-${n}`,
  endpoint: `https://push.example/${n}`,
  p256dh: 'p',
  auth: 'a',
  kind: 'message',
  payload: '{"kind":"message"}',
  attempt: 0,
  expiresAt: Date.now() + 60_000,
});

function describeQueue(
  name: string,
  openPods: () => Promise<{ pods: [SharedState, SharedState]; dispose(): Promise<void> }>,
) {
  describe(name, () => {
    let pods: [SharedState, SharedState];
    let dispose: () => Promise<void>;
    beforeEach(async () => {
      ({ pods, dispose } = await openPods());
    });
    afterEach(() => dispose());

    it('gives each job to one of two pods claiming at once', async () => {
      const [a, b] = [new PushQueue(pods[0]), new PushQueue(pods[1])];
      const now = Date.now();
      await Promise.all(Array.from({ length: 40 }, (_, n) => a.add(delivery(n), now - 1)));
      const claims = await Promise.all([
        a.claim(8, 60_000, now),
        b.claim(8, 60_000, now),
        a.claim(8, 60_000, now),
        b.claim(8, 60_000, now),
        a.claim(16, 60_000, now),
        b.claim(16, 60_000, now),
      ]);
      const taken = claims.flat().map((claimed) => (claimed.job as DeliveryJob).subscriptionId);
      expect(taken).toHaveLength(40);
      expect(new Set(taken).size).toBe(40);
      expect(await a.claim(8, 60_000, now)).toEqual([]);
      expect((await b.stats()).depth).toBe(40);
    });

    it('keeps a job queued already leased, for another pod once the lease ran out', async () => {
      const queue = new PushQueue(pods[0]);
      const now = Date.now();
      const added = await queue.addClaimed(delivery(2), 1000, now);
      expect(added.dueAt).toBe(now);
      expect((await queue.stats()).depth).toBe(1);
      // The pod that queued it is working on it: nobody else takes it meanwhile.
      expect(await new PushQueue(pods[1]).claim(1, 1000, now + 999)).toEqual([]);
      // That pod died (kill -9): the job is due again, whole.
      const [again] = await new PushQueue(pods[1]).claim(1, 1000, now + 1000);
      expect(again!.job).toEqual(added.job);
      expect((again!.job as DeliveryJob).subscriptionId).toBe('sub-2');
      await queue.finish(again!);
      expect(await queue.stats()).toEqual({ depth: 0, earliestDueAt: null });
    });

    it('hands a leased job out again once its lease ran out, and not before', async () => {
      const queue = new PushQueue(pods[0]);
      const now = Date.now();
      await queue.add(delivery(1), now);
      const [first] = await queue.claim(1, 1000, now);
      expect(first!.dueAt).toBe(now);
      expect(await new PushQueue(pods[1]).claim(1, 1000, now + 999)).toEqual([]);
      const [again] = await new PushQueue(pods[1]).claim(1, 1000, now + 1000);
      expect(again!.job).toEqual(first!.job);
      await queue.finish(again!);
      expect(await queue.stats()).toEqual({ depth: 0, earliestDueAt: null });
    });

    it('keeps a retry until it is due, with its new attempt count; a job finished elsewhere is not put back', async () => {
      const queue = new PushQueue(pods[0]);
      const now = Date.now();
      await queue.add(delivery(2), now);
      const [claimed] = await queue.claim(1, 60_000, now);
      const job = claimed!.job as DeliveryJob;
      await queue.retry(claimed!, { ...job, attempt: 1 }, now + 5000);
      expect(await queue.stats()).toEqual({ depth: 1, earliestDueAt: now + 5000 });
      expect(await queue.claim(1, 60_000, now + 4999)).toEqual([]);
      const [retried] = await queue.claim(1, 60_000, now + 5000);
      expect(retried!.job).toEqual({ ...job, attempt: 1 });
      await queue.finish(retried!);
      // The original lease's holder is late: its retry finds the job gone and adds nothing.
      await queue.retry(claimed!, { ...job, attempt: 2 }, now);
      expect((await queue.stats()).depth).toBe(0);
    });

    it('queues one wake job per 100 recipients, naming each recipient once; reads a job queued before that with its one address', async () => {
      const queue = new PushQueue(pods[0]);
      const recipients = Array.from(
        { length: 250 },
        (_, n) => `0x${n.toString(16).padStart(40, '0')}`,
      );
      await new WakeUps(queue, logger, new OutageLog(logger)).wake(recipients, {
        kind: 'group_message',
        conversationId: 'group:g',
        seq: 3,
      });
      const jobs = (await queue.claim(10, 60_000)).map(({ job }) => job as WakeJob);
      expect(jobs.map((job) => job.addresses.length).sort((a, b) => a - b)).toEqual([50, 100, 100]);
      expect(jobs.flatMap((job) => job.addresses).sort()).toEqual(recipients);
      expect(new Set(jobs.map((job) => job.wake.seq))).toEqual(new Set([3]));
      // A rolling update: the older version queued `{address}` jobs.
      await pods[0].run(
        legacyAdd,
        ['push:{queue}:due'],
        [JSON.stringify({ type: 'wake', id: 'old', address: '0xold', wake: { kind: 'call' } })],
      );
      expect((await queue.claim(10, 60_000)).map(({ job }) => job)).toEqual([
        { type: 'wake', id: 'old', addresses: ['0xold'], wake: { kind: 'call' } },
      ]);
    });
  });
}

it('spreads the jobs over the parts of the queue, and a claim gathers them from every part', async () => {
  const store = new MemoryStore();
  const queue = new PushQueue(new MemorySharedState({ keyPrefix: 'parts:', logger, store }));
  const now = Date.now();
  await Promise.all(Array.from({ length: 320 }, (_, n) => queue.add(delivery(n), now)));
  const perPart = QUEUE_KEYS.map((key) => store.zcard(`parts:${key}`));
  expect(perPart.reduce((sum, count) => sum + count, 0)).toBe(320);
  // 20 jobs per part on average (a job's part is its subscription's): a part left empty would mean the jobs are not spread.
  expect(Math.min(...perPart)).toBeGreaterThan(0);
  expect(
    new Set(QUEUE_KEYS.map((key) => key.slice(key.indexOf('{'), key.indexOf('}') + 1))).size,
  ).toBe(QUEUE_PARTS);
  const claimed = await queue.claim(320, 60_000, now);
  expect(new Set(claimed.map((each) => (each.job as DeliveryJob).subscriptionId)).size).toBe(320);
  expect(new Set(claimed.map((each) => each.key)).size).toBe(QUEUE_PARTS);
  expect(await queue.stats()).toEqual({ depth: 320, earliestDueAt: now + 60_000 });
});

it("keeps one recipient's jobs in one part, taken in the order they are due", async () => {
  const queue = new PushQueue(
    new MemorySharedState({ keyPrefix: 'order:', logger, store: new MemoryStore() }),
  );
  const now = Date.now();
  for (let seq = 1; seq <= 5; seq++)
    await queue.add(
      {
        type: 'wake',
        addresses: ['0xbob'],
        wake: { kind: 'message', conversationId: 'dm:a:b', seq },
      },
      now + seq,
    );
  const claimed = await queue.claim(10, 60_000, now + 10);
  expect(new Set(claimed.map((each) => each.key)).size).toBe(1);
  expect(claimed.map((each) => (each.job as WakeJob).wake.seq)).toEqual([1, 2, 3, 4, 5]);
});

/** How the version before batched wake jobs queued one. */
const legacyAdd = defineScript<[member: string], number>({
  name: 'test-legacy-wake-add',
  keys: 1,
  lua: `return redis.call('ZADD', KEYS[1], 0, ARGV[1])`,
  local: (state, [key], [member]) => (state.zadd(key!, 0, member!), 1),
});

describeQueue('in memory', async () => {
  const store = new MemoryStore();
  const pods: [SharedState, SharedState] = [
    new MemorySharedState({ keyPrefix: 'q:', logger, store }),
    new MemorySharedState({ keyPrefix: 'q:', logger, store }),
  ];
  return { pods, dispose: async () => void (await Promise.all(pods.map((pod) => pod.close()))) };
});

// Every part of the queue has a hash tag of its own: on a cluster each script stays in one slot.
describe('on a Redis Cluster', () => {
  let cluster: PrivateRedisCluster;
  beforeAll(async () => {
    cluster = await startPrivateRedisCluster();
  });
  afterAll(() => cluster.dispose());
  describeQueue('(three masters)', async () => {
    const keyPrefix = uniqueTestPrefix('push-queue-cluster');
    const open = () =>
      openSharedState({ redisUrl: cluster.url, redisCluster: true, keyPrefix, logger });
    const pods = await Promise.all([open(), open()]);
    return { pods, dispose: async () => void (await Promise.all(pods.map((pod) => pod.close()))) };
  });
});

await withRedis((redisUrl) => {
  describeQueue('on Redis', async () => {
    const prefix = uniqueTestPrefix('push-queue');
    const pods = await Promise.all([
      openSharedState({ redisUrl, keyPrefix: prefix, logger }),
      openSharedState({ redisUrl, keyPrefix: prefix, logger }),
    ]);
    return {
      pods,
      async dispose() {
        await Promise.all(pods.map((pod) => pod.close()));
        await deleteKeys(redisUrl, prefix);
      },
    };
  });
});
