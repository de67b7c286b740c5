/**
 * The mixed workload of real clients: the users and conversations it needs are made first
 * (before any fault), then every actor runs until `stop()`: the conversations' senders (direct
 * with and without attachments, a group, a channel; edits and reactions), the recipients' /ws
 * devices (reconnecting with replay; some slow consumers), sign-ins with refreshes, logouts
 * and ended sessions, key-bundle fetches with one-time prekeys, chat-list and history reads,
 * and accounts reported and suspended by an operator; the workload's own sessions are refreshed
 * as their tokens age (session-keeper.ts).
 */
import { RealtimeDevice } from '../faults/support/realtime-device.js';
import { signIn, TestUser } from '../support/wallet.js';
import type { SignedIn } from '../support/wallet.js';
import { ConversationSenders } from './conversations.js';
import type { SoakConversation } from './conversations.js';
import { DeviceChurn } from './device-churn.js';
import { HistoryReads } from './history-reads.js';
import { PrekeyFetches } from './prekey-fetches.js';
import type { Recorder } from './recorder.js';
import { block } from './security-holds.js';
import type { SecurityHold } from './security-holds.js';
import { SeededRandom } from './seeded-random.js';
import { SessionChurn } from './session-churn.js';
import { SessionKeeper } from './session-keeper.js';
import type { SoakCluster } from './soak-cluster.js';
import { Suspensions } from './suspensions.js';

const DIRECT_CHATS = 6;
const GROUP_MEMBERS = 3;
const CHURNING_USERS = 5;
const KEY_OWNERS = 3;
const BLOCKS = 2;
const SUSPENSIONS = 3;

export interface Workload {
  readonly conversations: readonly SoakConversation[];
  /** The direct chats' readers' devices, by conversation. */
  readonly devices: ReadonlyMap<SoakConversation, RealtimeDevice>;
  readonly holds: SecurityHold[];
  readonly prekeys: PrekeyFetches;
  readonly deviceChurn: DeviceChurn;
  readonly suspensions: Suspensions;
  /** Stops the load (senders drain their last message); the devices stay connected. */
  stop(): Promise<void>;
  disconnectDevices(): Promise<void>;
}

/** `loadMs`: how long the load will run (the suspensions are spread over its first half). */
export async function startWorkload(
  cluster: SoakCluster,
  recorder: Recorder,
  random: SeededRandom,
  loadMs: number,
): Promise<Workload> {
  const { api } = cluster;
  /** Every session the workload made for itself, kept alive by the SessionKeeper. */
  const kept: SignedIn[] = [];
  const users = async (count: number) => {
    const made: SignedIn[] = [];
    for (let i = 0; i < count; i += 1) made.push(await cluster.signIn());
    kept.push(...made);
    return made;
  };
  const conversations: SoakConversation[] = [];
  for (let i = 0; i < DIRECT_CHATS; i += 1) {
    const [sender, reader] = (await users(2)) as [SignedIn, SignedIn];
    conversations.push({
      kind: 'direct',
      label: `direct${i + 1}`,
      senders: [sender],
      reader,
      target: { recipient_address: reader.user.address },
      senderSide: { peer_address: reader.user.address },
      readerSide: { peer_address: sender.user.address },
      acknowledged: [],
    });
  }
  conversations.push(await group(cluster, await users(GROUP_MEMBERS)));
  conversations.push(await channel(cluster, await users(2)));

  const holds: SecurityHold[] = [];
  for (let i = 0; i < BLOCKS; i += 1) {
    const [blocker, blocked] = (await users(2)) as [SignedIn, SignedIn];
    const answer = await cluster.http.post(
      '/api/v1/block-contact',
      { address: blocked.user.address },
      { authorization: `Bearer ${blocker.accessToken}` },
    );
    if (answer.status !== 200) throw new Error(`block-contact: ${answer.status}`);
    holds.push(block(blocker, blocked, recorder.now()));
  }

  const devices = new Map<SoakConversation, RealtimeDevice>();
  for (const [index, conversation] of conversations.entries())
    if (conversation.kind === 'direct')
      devices.set(
        conversation,
        await RealtimeDevice.connect(
          api,
          cluster.wsPods.map((pod) => pod.service),
          conversation.reader,
          index % 2,
        ),
      );
  const prekeys = await PrekeyFetches.start(
    api,
    recorder,
    await users(KEY_OWNERS),
    await users(2),
    random.fork(),
  );
  const churningUsers = Array.from({ length: CHURNING_USERS }, () => new TestUser());
  for (const user of churningUsers) await signIn(api.baseUrl, user);
  const suspensionCases = [];
  for (let i = 0; i < SUSPENSIONS; i += 1) {
    // The target is not kept alive: its session must end with the suspension, and renewing it
    // afterwards would be refused sign-ins, which lock the soak's one client IP out.
    const [reporter] = (await users(1)) as [SignedIn];
    suspensionCases.push({ reporter, target: await cluster.signIn() });
  }

  const allDevices = [...devices.values()];
  const senders = new ConversationSenders(api, recorder, conversations, random.fork());
  const suspensions = new Suspensions(
    api,
    recorder,
    cluster.reviewer,
    suspensionCases,
    holds,
    loadMs,
  );
  const actors = [
    senders,
    new SessionChurn(api, recorder, churningUsers, holds, random.fork()),
    new HistoryReads(api, recorder, conversations, random.fork()),
    prekeys,
    suspensions,
    new SessionKeeper(api, recorder, [...kept, cluster.reviewer]),
  ];
  const deviceChurn = new DeviceChurn(allDevices, allDevices.slice(0, 2), random.fork());
  return {
    conversations,
    devices,
    holds,
    prekeys,
    deviceChurn,
    suspensions,
    async stop() {
      await deviceChurn.stop();
      await Promise.all(actors.map((actor) => actor.stop()));
    },
    async disconnectDevices() {
      await Promise.all(allDevices.map((device) => device.stop()));
    },
  };
}

async function group(cluster: SoakCluster, members: SignedIn[]): Promise<SoakConversation> {
  const [owner, ...others] = members as [SignedIn, ...SignedIn[]];
  const created = await cluster.http.post(
    '/api/v1/groups/create',
    { name: 'soak group', member_addresses: others.map((member) => member.user.address) },
    { authorization: `Bearer ${owner.accessToken}` },
  );
  if (created.status !== 200) throw new Error(`groups/create: ${created.status}`);
  const side = { group_id: created.body.group.id as string };
  return {
    kind: 'group',
    label: 'group',
    senders: [owner, others[0]!],
    reader: others.at(-1)!,
    target: side,
    senderSide: side,
    readerSide: side,
    acknowledged: [],
  };
}

async function channel(
  cluster: SoakCluster,
  [owner, follower]: SignedIn[],
): Promise<SoakConversation> {
  const created = await cluster.http.post(
    '/api/v1/channels',
    { name: 'soak channel', is_public: true },
    { authorization: `Bearer ${owner!.accessToken}` },
  );
  if (created.status !== 200) throw new Error(`channels: ${created.status}`);
  const side = { channel_id: created.body.channel.id as string };
  const followed = await cluster.http.post(
    `/api/v1/channels/${side.channel_id}/subscribe`,
    {},
    {
      authorization: `Bearer ${follower!.accessToken}`,
    },
  );
  if (followed.status !== 200) throw new Error(`channel subscribe: ${followed.status}`);
  return {
    kind: 'channel',
    label: 'channel',
    senders: [owner!],
    reader: follower!,
    target: side,
    senderSide: side,
    readerSide: side,
    acknowledged: [],
  };
}
