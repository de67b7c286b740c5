/**
 * Traffic on a cluster before it is faulted: conversations of new users, each recipient's
 * realtime device connected first (so it sees every message), then the senders' load.
 */
import type { FaultCluster } from './fault-cluster.js';
import { conversations, MessageLoad } from './message-load.js';
import type { Conversation } from './message-load.js';
import { RealtimeDevice } from './realtime-device.js';

export interface Traffic {
  readonly load: MessageLoad;
  readonly devices: ReadonlyMap<Conversation, RealtimeDevice>;
  /** Stops the load and disconnects the devices. */
  stop(): Promise<void>;
}

/** `senders` conversations; recipient `i`'s device starts on ws pod `firstPod(i)`. */
export async function startTraffic(
  cluster: FaultCluster,
  label: string,
  senders: number,
  firstPod: (index: number) => number,
): Promise<Traffic> {
  const pairs = await conversations(cluster.signIn, senders);
  const devices = new Map<Conversation, RealtimeDevice>();
  for (const [index, conversation] of pairs.entries())
    devices.set(
      conversation,
      await RealtimeDevice.connect(
        cluster.api,
        cluster.wsPods,
        conversation.recipient,
        firstPod(index),
      ),
    );
  const load = new MessageLoad(cluster.api, pairs, label);
  return {
    load,
    devices,
    async stop() {
      await load.stop();
      await Promise.all([...devices.values()].map((device) => device.stop()));
    },
  };
}
