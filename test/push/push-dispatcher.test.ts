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
import type { PushSender } from '../../src/push/delivery/push-sender.js';
import { WakeUps } from '../../src/push/delivery/wake-ups.js';
import { pushIndexes } from '../../src/push/push-area.js';
import { createPushMetrics } from '../../src/push/push-metrics.js';
import { PushSubscriptions } from '../../src/push/subscriptions/push-subscriptions.js';
import { checkSubscription } from '../../src/push/subscriptions/subscription-checks.js';
import { silentLogger } from '../support/silent-logger.js';

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
) {
  const queue = new PushQueue(state);
  const sent: DeliveryJob[] = [];
  const logger = createLogger('silent');
  const registry = new Registry();
  const dispatcher = new PushDispatcher({
    queue,
    subscriptions,
    activeSessionsOf,
    connections: new SessionConnections(state),
    sharedState: state,
    sender: {
      send: async (job: DeliveryJob) => (sent.push(job), { outcome: 'sent' as const }),
      close: () => undefined,
    } as unknown as PushSender,
    metrics: createPushMetrics(registry),
    logger,
    outages: new OutageLog(logger),
    coalesceWindowMs: 10_000,
    leaseMs: 60_000,
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
