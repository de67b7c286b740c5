/**
 * The hand-over of sealed envelopes, on the embedded store with the event stream faked: one
 * envelope goes out exactly once however many hand-overs race for it, a failed publish puts it
 * back in the queue with its payload, and with shared state away the envelope stays queued
 * instead of failing the send.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { EmbeddedDocumentStore } from '../../src/platform/store/embedded/embedded-store.js';
import type { UserEventStream } from '../../src/events/user-event-stream.js';
import type { WakeUps } from '../../src/push/delivery/wake-ups.js';
import type { WakeUp } from '../../src/push/delivery/wake-kinds.js';
import { SealedDelivery } from '../../src/relay/sealed/sealed-delivery.js';
import { sealedEnvelopeIndexes } from '../../src/relay/sealed/sealed-envelope.js';
import { SealedMailbox } from '../../src/relay/sealed/sealed-mailbox.js';
import { silentLogger } from '../support/silent-logger.js';

let dataDir: string;
let store: EmbeddedDocumentStore;
let mailbox: SealedMailbox;
const logger = pino({ level: 'silent' });
let wakes: { address: string; wake: WakeUp }[];
const wakeUps = {
  wake: async (addresses: readonly string[], wake: WakeUp) =>
    void wakes.push(...addresses.map((address) => ({ address, wake }))),
} as WakeUps;

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'sealed-'));
  store = await EmbeddedDocumentStore.open({ dataDir, logger: silentLogger });
  await store.ensureIndexes(sealedEnvelopeIndexes);
  mailbox = new SealedMailbox(store);
  wakes = [];
});
afterEach(async () => {
  await store.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A recipient's event stream: `connected` answers isConnected, `published` collects the events. */
function fakeEvents(
  connected: () => Promise<boolean>,
  publish: (event: string) => Promise<number>,
) {
  return {
    isConnected: connected,
    publishDurable: (_address: string, event: string) => publish(event),
  } as unknown as UserEventStream;
}

it('hands an envelope over once, whichever of the send and several drains claims it', async () => {
  const published: string[] = [];
  const delivery = new SealedDelivery(
    mailbox,
    fakeEvents(
      async () => true,
      async (event) => published.push(event),
    ),
    new MemorySharedState({ keyPrefix: 't:', logger }),
    logger,
    wakeUps,
  );
  const { envelope } = await mailbox.accept('0xr', 'c1', Buffer.from('payload'));
  await Promise.all([
    delivery.deliver(envelope),
    delivery.drain('0xr'),
    delivery.drain('0xr'),
    delivery.deliver(envelope),
  ]);
  expect(published).toHaveLength(1);
  expect(JSON.parse(published[0]!).data).toEqual({
    message_id: envelope._id,
    sealed_payload: Buffer.from('payload').toString('base64'),
    received_at: envelope.receivedAt.toISOString(),
  });
  expect(await mailbox.isDelivered(envelope._id)).toBe(true);
  expect(wakes).toEqual([]);
});

it('puts an envelope back in the queue, payload included, when its event cannot be published', async () => {
  let fail = true;
  const published: string[] = [];
  const events = fakeEvents(
    async () => true,
    async (event) => {
      if (fail) throw new Error('Redis is away');
      return published.push(event);
    },
  );
  const delivery = new SealedDelivery(
    mailbox,
    events,
    new MemorySharedState({ keyPrefix: 't:', logger }),
    logger,
    wakeUps,
  );
  const { envelope } = await mailbox.accept('0xr', 'c1', Buffer.from('kept'));
  expect(await delivery.deliver(envelope)).toBe(false);
  expect(await mailbox.isDelivered(envelope._id)).toBe(false);
  fail = false;
  await delivery.drain('0xr');
  expect(JSON.parse(published[0]!).data.sealed_payload).toBe(
    Buffer.from('kept').toString('base64'),
  );
});

it('keeps the envelope queued when shared state cannot say whether the recipient is connected', async () => {
  const delivery = new SealedDelivery(
    mailbox,
    fakeEvents(
      () => Promise.reject(new Error('Redis is away')),
      async () => 1,
    ),
    new MemorySharedState({ keyPrefix: 't:', logger }),
    logger,
    wakeUps,
  );
  const { envelope } = await mailbox.accept('0xr', 'c1', Buffer.from('queued'));
  expect(await delivery.deliver(envelope)).toBe(false);
  expect(await mailbox.isDelivered(envelope._id)).toBe(false);
  // Queued for a recipient who is not (known to be) connected: their offline devices are woken, naming nobody.
  expect(wakes).toEqual([{ address: '0xr', wake: { kind: 'sealed_message' } }]);
});
