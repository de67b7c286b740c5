/**
 * The api pod killed (kill -9) under load, in the cluster where it is also the embedded
 * store's process: REST is gone until it is back on its DATA_DIR, while the ws pods — which
 * need only Redis — keep every device connected. After the restart every acknowledged message
 * is stored without sequence holes, and every stored message reaches its recipient's device
 * (whose connection never dropped) or the device is told to resync.
 */
import {
  expectEveryAcknowledgedStored,
  expectNoSequenceHoles,
  expectNoSilentGap,
  histories,
} from './support/checks.js';
import type { StoredMessage } from './support/checks.js';
import { startCluster } from './support/fault-cluster.js';
import type { FaultCluster } from './support/fault-cluster.js';
import type { Conversation, MessageLoad } from './support/message-load.js';
import type { RealtimeDevice } from './support/realtime-device.js';
import { startTraffic } from './support/traffic.js';
import type { Traffic } from './support/traffic.js';

const ROUNDS = 2;

let cluster: FaultCluster;
let traffic: Traffic;
let load: MessageLoad;
let devices: ReadonlyMap<Conversation, RealtimeDevice>;
let stored: Map<Conversation, StoredMessage[]>;

beforeAll(async () => {
  cluster = await startCluster();
  traffic = await startTraffic(cluster, 'api-kill', 8, (index) => index % 2);
  ({ load, devices } = traffic);
  const downtimes: number[] = [];
  for (let round = 1; round <= ROUNDS; round += 1) {
    await load.acknowledgedMore(150);
    const killedAt = Date.now();
    await cluster.api.kill();
    await cluster.api.restart();
    downtimes.push(Date.now() - killedAt);
  }
  await load.acknowledgedMore(150);
  await load.stop();
  stored = await histories(cluster.http, load);
  // Give live delivery of the last messages its moment; the checks then say what is missing.
  await Promise.allSettled(
    [...stored].map(([conversation, messages]) =>
      devices.get(conversation)!.received(messages.at(-1)!.id, 5000),
    ),
  );
  const unreachable = load.refusals.filter((refusal) => refusal.status === 'no connection').length;
  console.log(
    `api pod killed: ${ROUNDS} kill -9 rounds, ${load.acknowledgedCount} acknowledged sends, ${unreachable} sends found no api process, ` +
      `kill to ready again ${downtimes.join(' / ')} ms; device connections closed meanwhile: ${[...devices.values()].flatMap((device) => device.closeCodes).length}`,
  );
}, 120_000);
afterAll(async () => {
  await traffic?.stop();
  await cluster?.stop();
});

it('every acknowledged message is stored', () => {
  expectEveryAcknowledgedStored(load, stored);
});

it('sequence numbers have no hole after the crashes (defect 7)', () => {
  expectNoSequenceHoles(stored);
});

it('the devices on the ws pods stayed connected through the api outage', () => {
  expect([...devices.values()].map((device) => device.closeCodes)).toEqual(
    [...devices.values()].map(() => []),
  );
});

it("every stored message reached its recipient's device, or the device was told to resync", async () => {
  for (const [conversation, messages] of stored)
    await expectNoSilentGap(devices.get(conversation)!, messages, { exact: false });
});
