/**
 * RedisSharedState on a private three-master Redis Cluster whose masters are all stopped at once
 * for seconds, then started again empty: the sharded subscriptions made before the outage come
 * back on every master by themselves, the listeners are told (they may have missed messages),
 * and readiness (`ping`) fails until the subscriber side is in place again, not only commands.
 */
import calculateSlot from 'cluster-key-slot';
import { Redis } from 'ioredis';
import { openSharedState } from '../../../src/platform/shared-state/open-shared-state.js';
import type { SharedState } from '../../../src/platform/shared-state/shared-state.js';
import { startPrivateRedisCluster } from '../../support/private-redis-cluster.js';
import type { PrivateRedisCluster } from '../../support/private-redis-cluster.js';
import { LEVEL, recordingLogger } from './recording-logger.js';
import { passesEventually } from '../../support/passes-eventually.js';

const PREFIX = 'outage:';
/** Enough channels that every master serves several. */
const CHANNELS = Array.from({ length: 20 }, (_, index) => `events-${index}`);

let cluster: PrivateRedisCluster;
let subscriber: SharedState;
let publisher: SharedState;
const { logger, records } = recordingLogger();
const received = new Map<string, string[]>(CHANNELS.map((channel) => [channel, []]));
const restored = new Map<string, number>(CHANNELS.map((channel) => [channel, 0]));

/** Publishes on every channel until each has delivered `message` (pub/sub drops what finds no subscriber). */
const everyChannelDelivers = (message: string, timeoutMs: number) =>
  passesEventually(
    async () => {
      for (const channel of CHANNELS)
        if (!received.get(channel)!.includes(message)) await publisher.publish(channel, message);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(CHANNELS.filter((channel) => !received.get(channel)!.includes(message))).toEqual([]);
    },
    timeoutMs,
    100,
  );

beforeAll(async () => {
  cluster = await startPrivateRedisCluster();
  subscriber = await openSharedState({
    redisUrl: cluster.url,
    redisCluster: true,
    keyPrefix: PREFIX,
    logger,
  });
  publisher = await openSharedState({
    redisUrl: cluster.url,
    redisCluster: true,
    keyPrefix: PREFIX,
    logger,
  });
  for (const channel of CHANNELS) {
    await subscriber.subscribe(
      channel,
      (message) => void received.get(channel)!.push(message),
      () => restored.set(channel, restored.get(channel)! + 1),
    );
  }
}, 60_000);

afterAll(async () => {
  await Promise.all([subscriber?.close(), publisher?.close()]);
});

// A hook of its own: a client that cannot close (the hook above times out) must not leave the servers running.
afterAll(async () => {
  await cluster?.dispose();
});

test('the channels are spread over every master', async () => {
  const admin = new Redis(cluster.ports[0]!, '127.0.0.1');
  try {
    const ranges = await admin.cluster('SLOTS');
    const masterOf = (channel: string) => {
      const slot = calculateSlot(PREFIX + channel);
      return ranges.find(([start, end]) => start <= slot && slot <= end)![2]![1];
    };
    expect(new Set(CHANNELS.map(masterOf))).toEqual(new Set(cluster.ports));
  } finally {
    admin.disconnect();
  }
});

test('every master stopped for 3 s and back empty: not ready meanwhile, then ready and delivering again on every channel', async () => {
  await subscriber.ping();
  await everyChannelDelivers('before', 5000);

  const outage = cluster.restartAllEmptyAfter(3000);
  // While the masters are down: not ready, and a new subscription fails at once (the caller retries).
  await passesEventually(() => expect(subscriber.ping()).rejects.toThrow(), 2000, 100);
  await expect(subscriber.subscribe('during', () => undefined)).rejects.toThrow();
  await outage;

  const back = Date.now();
  await passesEventually(() => subscriber.ping(), 10_000, 100);
  await everyChannelDelivers('after', 5000);
  expect(Date.now() - back).toBeLessThan(12_000);
  // Each listener was told that its subscription was lost and is back.
  expect(CHANNELS.filter((channel) => restored.get(channel)! < 1)).toEqual([]);
  expect(
    records.some(
      (record) => record.level === LEVEL.warn && /sharded subscriptions lost/.test(record.msg),
    ),
  ).toBe(true);
  expect(
    records.some(
      (record) => record.level === LEVEL.info && /sharded subscriptions restored/.test(record.msg),
    ),
  ).toBe(true);
}, 60_000);

test('readiness reflects the subscriber side: subscriber connections killed, commands intact', async () => {
  await passesEventually(() => subscriber.ping(), 10_000, 100);
  const before = CHANNELS.map((channel) => restored.get(channel)!);
  for (const port of cluster.ports) {
    const admin = new Redis(port, '127.0.0.1');
    try {
      await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    } finally {
      admin.disconnect();
    }
  }
  await passesEventually(
    () => expect(subscriber.ping()).rejects.toThrow(/sharded subscriptions are not in place/),
    2000,
    100,
  );
  expect(await subscriber.set('commands-still-work', 'yes')).toBe(true);

  await passesEventually(() => subscriber.ping(), 10_000, 100);
  await everyChannelDelivers('after the kill', 5000);
  expect(CHANNELS.filter((channel, index) => restored.get(channel)! <= before[index]!)).toEqual([]);
}, 30_000);
