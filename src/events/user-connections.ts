/**
 * "A user just connected": ws pods announce each authenticated connection, once it receives
 * the user's events, on a shared-state channel (split by shard bucket) that api pods listen to. It lets the api side
 * hand over what waits for the user in the store (queued sealed-sender envelopes) when, and
 * only when, the user can receive it. Pub/sub is at-most-once, so a lost announcement delays
 * the hand-over to the user's next connection; nothing is lost.
 */
import { BucketedChannel } from '../platform/shared-state/bucketed-channel.js';
import type { SharedState, Unsubscribe } from '../platform/shared-state/shared-state.js';

export const connectedChannel = new BucketedChannel('ws:connected');

export class UserConnections {
  constructor(private readonly state: SharedState) {}

  announce(address: string): Promise<void> {
    return connectedChannel.publish(this.state, address, address);
  }

  onConnected(handler: (address: string) => void | Promise<void>): Promise<Unsubscribe> {
    return connectedChannel.subscribeAll(this.state, handler);
  }
}
