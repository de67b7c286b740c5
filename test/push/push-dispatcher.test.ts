/**
 * The dispatcher's expansion of a wake-up, on the embedded store and in-memory shared state
 * with a real queue: subscriptions whose session is no longer active (its end was not heard)
 * are removed and not pushed; the others get one delivery each, which carries everything a pod
 * without the store needs to send it. The sender records instead of sending (the real one is
 * tested against a local push service in push-notifications.e2e.test.ts).
 */
import { createECDH, randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { createLogger } from '../../src/platform/logging/logger.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import { SessionConnections } from '../../src/events/session-connections.js';
import { PushDispatcher } from '../../src/push/delivery/push-dispatcher.js';
import { PushQueue } from '../../src/push/delivery/push-queue.js';
import type { DeliveryJob } from '../../src/push/delivery/push-queue.js';
import type { PushSender, SendOutcome } from '../../src/push/delivery/push-sender.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import { pushIndexes } from '../../src/push/push-area.js';
import { createPushMetrics } from '../../src/push/push-metrics.js';
import { PushSubscriptions } from '../../src/push/subscriptions/push-subscriptions.js';
import { checkSubscription } from '../../src/push/subscriptions/subscription-checks.js';
import type { Clock } from '../../src/platform/scheduling/due-timer.js';
import { silentLogger } from '../support/silent-logger.js';
import { ManualClock } from '../platform/scheduling/manual-clock.js';

const ADDRESS = `0x${'d'.repeat(40)}`;
let dataDir: string;
let store: EmbeddedDocumentStore;
let state: MemorySharedState;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'push-dispatch-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await store.ensureIndexes(pushIndexes);
  state = new MemorySharedState({ keyPrefix: 't:', logger: createLogger('silent') });
});
afterEach(async () => {
  await state.close();
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

const subscription = (name: string) => {
  const ecdh = createECDH('prime256v1');
  ecdh.generateKeys();
  return checkSubscription(`https://push.example/${name}`, {
    p256dh: ecdh.getPublicKey().toString('base64url'),
    auth: randomBytes(16).toString('base64url'),
  });
};

/** A dispatcher on the real queue whose sender records the deliveries instead of sending them. */
function dispatcherFor(
  subscriptions: PushSubscriptions,
  activeSessionsOf: (address: string) => Promise<string[]>,
  options: { clock?: Clock; send?: (job: DeliveryJob) => SendOutcome } = {},
) {
  const queue = new PushQueue(state);
  const sent: DeliveryJob[] = [];
  const send = options.send ?? (() => ({ outcome: 'sent' as const }));
  const logger = createLogger('silent');
  const registry = new Registry();
  const dispatcher = new PushDispatcher({
    queue,
    subscriptions,
    activeSessionsOf,
    connections: new SessionConnections(state),
    sharedState: state,
    sender: {
      send: async (job: DeliveryJob) => (sent.push(job), send(job)),
      close: () => undefined,
    } as unknown as PushSender,
    metrics: createPushMetrics(registry),
    logger,
    outages: new OutageLog(logger),
    coalesceWindowMs: 10_000,
    leaseMs: 60_000,
    clock: options.clock,
  });
  return { queue, sent, logger, registry, dispatcher };
}

it('drops the subscriptions of sessions that are over and queues one delivery per live one', async () => {
  const subscriptions = new PushSubscriptions(store);
  await subscriptions.subscribe({ address: ADDRESS, sessionId: 'active' }, subscription('phone'));
  await subscriptions.subscribe(
    { address: ADDRESS, sessionId: 'expired' },
    subscription('old-laptop'),
  );
  const { queue, sent, logger, registry, dispatcher } = dispatcherFor(
    subscriptions,
    async (address) => (address === ADDRESS ? ['active'] : []),
  );
  await new WakeUps(queue, logger, new OutageLog(logger)).wake([ADDRESS], {
    kind: 'message',
    conversationId: 'dm:x:y',
    seq: 7,
  });
  dispatcher.start();
  try {
    while (sent.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second delivery would come by now
  } finally {
    await dispatcher.stop();
  }
  expect(sent).toEqual([
    expect.objectContaining<Partial<DeliveryJob>>({
      type: 'deliver',
      endpoint: 'https://push.example/phone',
      kind: 'message',
      payload: '{"kind":"message","conversation_id":"dm:x:y","seq":7}',
      attempt: 0,
    }),
  ]);
  expect((await subscriptions.forAccount(ADDRESS)).map((s) => s.sessionId)).toEqual(['active']);
  expect(await queue.stats()).toEqual({ depth: 0, earliestDueAt: null });
  expect(await registry.getSingleMetricAsString('push_subscriptions_removed_total')).toContain(
    'push_subscriptions_removed_total{reason="session_ended"} 1',
  );
});

it('wakes every recipient a job names, each on its own live subscription', async () => {
  const OTHER = `0x${'e'.repeat(40)}`;
  const subscriptions = new PushSubscriptions(store);
  await subscriptions.subscribe({ address: ADDRESS, sessionId: 's1' }, subscription('one'));
  await subscriptions.subscribe({ address: OTHER, sessionId: 's2' }, subscription('two'));
  const { queue, sent, logger, dispatcher } = dispatcherFor(subscriptions, async (address) =>
    address === ADDRESS ? ['s1'] : ['s2'],
  );
  await new WakeUps(queue, logger, new OutageLog(logger)).wake([ADDRESS, OTHER], {
    kind: 'group_message',
    conversationId: 'group:g',
    seq: 1,
  });
  dispatcher.start();
  try {
    while (sent.length < 2) await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    await dispatcher.stop();
  }
  expect(sent.map((job) => job.endpoint).sort()).toEqual([
    'https://push.example/one',
    'https://push.example/two',
  ]);
  expect(await queue.stats()).toEqual({ depth: 0, earliestDueAt: null });
});

it('never coalesces mentions: a mention is pushed right after a coalesced group message, and again', async () => {
  const subscriptions = new PushSubscriptions(store);
  await subscriptions.subscribe({ address: ADDRESS, sessionId: 's1' }, subscription('phone'));
  const { queue, sent, logger, dispatcher } = dispatcherFor(subscriptions, async () => ['s1']);
  const wakeUps = new WakeUps(queue, logger, new OutageLog(logger));
  const wake = (kind: 'group_message' | 'mention', seq: number) =>
    wakeUps.wake([ADDRESS], { kind, conversationId: 'group:g', seq });
  dispatcher.start();
  try {
    await wake('group_message', 1);
    while (sent.length < 1) await new Promise((resolve) => setTimeout(resolve, 20));
    await wake('group_message', 2); // within the coalescing window: not pushed
    await wake('mention', 3);
    await wake('mention', 4);
    while (sent.length < 3) await new Promise((resolve) => setTimeout(resolve, 20));
    await new Promise((resolve) => setTimeout(resolve, 300)); // a coalesced one would come by now
  } finally {
    await dispatcher.stop();
  }
  expect(sent.map((job) => JSON.parse(job.payload))).toEqual([
    { kind: 'group_message', conversation_id: 'group:g', seq: 1 },
    { kind: 'mention', conversation_id: 'group:g', seq: 3 },
    { kind: 'mention', conversation_id: 'group:g', seq: 4 },
  ]);
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('an idle dispatcher sleeps, and is woken by the work it must do', () => {
  it('wakes a few times over two idle minutes, not every 200 ms', async () => {
    const clock = new ManualClock();
    const { dispatcher } = dispatcherFor(new PushSubscriptions(store), async () => [], { clock });
    dispatcher.start();
    try {
      await sleep(100); // the claim and the queue's read at start, on the real shared state
      for (let second = 0; second < 120; second++) {
        await clock.advance(1000);
        await sleep(1); // the claims a wake-up starts
      }
    } finally {
      await dispatcher.stop();
    }
    // The read again a second after the one at start, then one safety poll per 30 s; a 200 ms
    // poll would be 600.
    expect(clock.firedAt.length).toBeGreaterThanOrEqual(4);
    expect(clock.firedAt.length).toBeLessThanOrEqual(6);
  });

  it('takes a job another pod queued at once, though its safety poll is 30 s away', async () => {
    const subscriptions = new PushSubscriptions(store);
    await subscriptions.subscribe({ address: ADDRESS, sessionId: 's1' }, subscription('phone'));
    const { sent, logger, dispatcher } = dispatcherFor(subscriptions, async () => ['s1']);
    dispatcher.start();
    try {
      await sleep(1500); // past the read again after the start: the dispatcher sleeps for 30 s
      // Another pod's queue: only the queue's announcement reaches this dispatcher.
      const otherPod = new WakeUps(new PushQueue(state), logger, new OutageLog(logger));
      const queuedAt = Date.now();
      await otherPod.wake([ADDRESS], { kind: 'call' });
      while (sent.length === 0 && Date.now() - queuedAt < 10_000) await sleep(10);
      expect(sent).toHaveLength(1);
      expect(Date.now() - queuedAt).toBeLessThan(2000);
    } finally {
      await dispatcher.stop();
    }
  });

  it('gathers the wake-ups of a burst of sends into a few claims, not one claim per send', async () => {
    const { queue, logger, dispatcher } = dispatcherFor(
      new PushSubscriptions(store),
      async () => [],
    );
    let claims = 0;
    const claim = queue.claim.bind(queue);
    queue.claim = (...args: Parameters<PushQueue['claim']>) => (claims++, claim(...args));
    const wakeUps = new WakeUps(queue, logger, new OutageLog(logger));
    dispatcher.start();
    try {
      await sleep(1500); // past the claim and the read at start: the dispatcher sleeps
      const before = claims;
      // 40 sends over about 200 ms, each queueing its recipient's wake-up, as the send path does.
      for (let send = 0; send < 40; send++) {
        await wakeUps.wake([`0x${send.toString(16).padStart(40, '0')}`], { kind: 'message' });
        await sleep(5);
      }
      const queuedAt = Date.now();
      while ((await queue.stats()).depth > 0 && Date.now() - queuedAt < 10_000) await sleep(10);
      expect((await queue.stats()).depth).toBe(0); // every wake-up was taken and worked
      // Woken at once by each, the dispatcher claimed about once per send (40); gathering for
      // WORK_GATHER_MS (100 ms), a few times over the burst.
      expect(claims - before).toBeLessThanOrEqual(8);
    } finally {
      await dispatcher.stop();
    }
  });

  it('retries a delivery when its Retry-After is over, not at the next safety poll', async () => {
    const subscriptions = new PushSubscriptions(store);
    await subscriptions.subscribe({ address: ADDRESS, sessionId: 's1' }, subscription('phone'));
    const sentAt: number[] = [];
    const { queue, sent, logger, dispatcher } = dispatcherFor(subscriptions, async () => ['s1'], {
      send: () => {
        sentAt.push(Date.now());
        return sentAt.length === 1
          ? { outcome: 'retry', reason: 'throttled', retryAfterMs: 2500 }
          : { outcome: 'sent' };
      },
    });
    await new WakeUps(queue, logger, new OutageLog(logger)).wake([ADDRESS], { kind: 'call' });
    dispatcher.start();
    try {
      while (sent.length < 2 && (sentAt[0] === undefined || Date.now() - sentAt[0] < 10_000))
        await sleep(10);
    } finally {
      await dispatcher.stop();
    }
    expect(sent).toHaveLength(2);
    const [first, second] = sentAt as [number, number];
    expect(second - first).toBeGreaterThanOrEqual(2500);
    expect(second - first).toBeLessThan(4500);
  });
});
