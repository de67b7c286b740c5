/**
 * The relay's listener for connection announcements: an api pod whose shared state is away when
 * it starts still starts, keeps trying to listen, and drains a recipient's queue on the first
 * announcement it hears; stopping ends the subscription, and stops the retries of one not yet made.
 */
import { pino } from 'pino';
import { DependencyUnavailableError } from '../../src/platform/errors/dependency-unavailable.js';
import { OutageLog } from '../../src/platform/logging/outage-log.js';
import { MemorySharedState } from '../../src/platform/shared-state/memory-shared-state.js';
import { UserConnections, connectedChannel } from '../../src/events/user-connections.js';
import { DrainsOnConnect } from '../../src/relay/sealed/drains-on-connect.js';
import type { SealedDelivery } from '../../src/relay/sealed/sealed-delivery.js';

const silentOutages = () => new OutageLog(pino({ level: 'silent' }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The announcements of this user's shard bucket: each attempt to listen subscribes it once. */
const announced = connectedChannel.of('0xr');

/** Shared state whose subscriptions fail while `away` is true, as Redis's do during an outage. */
function sharedState() {
  const state = new MemorySharedState({ keyPrefix: 't:', logger: pino({ level: 'silent' }) });
  const control = { away: true, subscribeCalls: 0 };
  const subscribe = state.subscribe.bind(state);
  state.subscribe = async (channel, handler) => {
    if (channel === announced) control.subscribeCalls++;
    if (control.away) throw new DependencyUnavailableError('redis', 'Redis did not answer');
    return subscribe(channel, handler);
  };
  return { state, control };
}

function recordingDelivery() {
  const drained: string[] = [];
  return {
    drained,
    delivery: {
      drain: async (address: string) => void drained.push(address),
    } as unknown as SealedDelivery,
  };
}

it('starts while shared state is away, listens once it answers and drains on an announcement', async () => {
  const { state, control } = sharedState();
  const connections = new UserConnections(state);
  const { drained, delivery } = recordingDelivery();
  const drains = new DrainsOnConnect(connections, delivery, silentOutages());
  await drains.start();
  expect(control.subscribeCalls).toBe(1);
  control.away = false;
  await sleep(1_300);
  await connections.announce('0xr');
  await sleep(20);
  expect(drained).toEqual(['0xr']);
  await drains.stop();
  await connections.announce('0xr');
  await sleep(20);
  expect(drained).toEqual(['0xr']);
  expect(await state.hasSubscribers(announced)).toBe(false);
  await state.close();
});

it('stopped while waiting to retry, it never subscribes', async () => {
  const { state, control } = sharedState();
  const drains = new DrainsOnConnect(
    new UserConnections(state),
    recordingDelivery().delivery,
    silentOutages(),
  );
  await drains.start();
  await drains.stop();
  control.away = false;
  await sleep(1_300);
  expect(control.subscribeCalls).toBe(1);
  expect(await state.hasSubscribers(announced)).toBe(false);
  await state.close();
});

it('a drain that meets an outage is reported to the outage log, never thrown at the subscriber', async () => {
  const handlerFailures: unknown[] = [];
  const logger = pino(
    { level: 'error' },
    { write: (line: string) => void handlerFailures.push(JSON.parse(line)) },
  );
  const state = new MemorySharedState({ keyPrefix: 't:', logger });
  const connections = new UserConnections(state);
  const outage = new DependencyUnavailableError('redis', 'Redis did not answer');
  const failing = { drain: async () => Promise.reject(outage) } as unknown as SealedDelivery;
  const reported: DependencyUnavailableError[] = [];
  const outages = {
    report: (error: DependencyUnavailableError) => void reported.push(error),
  } as unknown as OutageLog;
  const drains = new DrainsOnConnect(connections, failing, outages);
  await drains.start();
  await connections.announce('0xr');
  await connections.announce('0xr');
  await sleep(20);
  expect(reported).toEqual([outage, outage]);
  expect(handlerFailures).toEqual([]);
  await drains.stop();
  await state.close();
});
