/**
 * A ws pod killed (kill -9, no goodbye) while messages flow: the cluster's api process and two
 * ws pods on their Redis; each recipient's device is on the pod that dies, reconnects to the
 * other with its last position, and must get exactly what it missed — every stored message
 * once, in order, with no `resync_required` (the event log in Redis is intact). Twice: ws2 dies,
 * comes back; then ws1 dies.
 */
import { expectEveryAcknowledgedStored, expectNoSilentGap, histories } from './support/checks.js';
import type { StoredMessage } from './support/checks.js';
import { startCluster } from './support/fault-cluster.js';
import type { FaultCluster } from './support/fault-cluster.js';
import type { Conversation, MessageLoad } from './support/message-load.js';
import type { RealtimeDevice } from './support/realtime-device.js';
import { startTraffic } from './support/traffic.js';
import type { Traffic } from './support/traffic.js';

let cluster: FaultCluster;
let traffic: Traffic;
let load: MessageLoad;
let devices: ReadonlyMap<Conversation, RealtimeDevice>;
let stored: Map<Conversation, StoredMessage[]>;

beforeAll(async () => {
  cluster = await startCluster();
  traffic = await startTraffic(cluster, 'ws-kill', 4, () => 1);
  ({ load, devices } = traffic);
  const reconnections: number[] = [];
  // Round 1 kills ws2 (where every device is), round 2 kills ws1 (where they all went).
  for (const pod of [cluster.wsPods[1]!, cluster.wsPods[0]!]) {
    await load.acknowledgedMore(100);
    const killedAt = Date.now();
    await pod.kill();
    await Promise.all([...devices.values()].map((device) => device.connected()));
    reconnections.push(Date.now() - killedAt);
    await pod.restart();
  }
  await load.acknowledgedMore(100);
  await load.stop();
  stored = await histories(cluster.http, load);
  await Promise.all(
    [...stored].map(([conversation, messages]) =>
      devices.get(conversation)!.received(messages.at(-1)!.id),
    ),
  );
  const closes = [...devices.values()].flatMap((device) => device.closeCodes);
  console.log(
    `ws pod killed: 2 rounds, ${load.acknowledgedCount} acknowledged sends to ${devices.size} devices; ` +
      `kill to every device reconnected on the other pod ${reconnections.join(' / ')} ms; close codes seen ${JSON.stringify([...new Set(closes)])}`,
  );
}, 120_000);
afterAll(async () => {
  await traffic?.stop();
  await cluster?.stop();
});

it('every acknowledged message is stored', () => {
  expectEveryAcknowledgedStored(load, stored);
});

it('each device, moved to the surviving pod with its position, got exactly every stored message, once, in order', async () => {
  for (const [conversation, messages] of stored)
    await expectNoSilentGap(devices.get(conversation)!, messages, { exact: true });
});
