/**
 * "A user just connected": ws pods announce each authenticated connection, once it receives
 * the user's events, on one shared-state channel that api pods listen to. It lets the api side
 * hand over what waits for the user in the store (queued sealed-sender envelopes) when, and
 * only when, the user can receive it. Pub/sub is at-most-once, so a lost announcement delays
 * the hand-over to the user's next connection; nothing is lost.
 */
import type { SharedState, Unsubscribe } from '../../platform/shared-state/shared-state.js';

const CONNECTED_CHANNEL = 'ws:connected';

export class UserConnections {
  constructor(private readonly state: SharedState) {}

  announce(address: string): Promise<void> {
    return this.state.publish(CONNECTED_CHANNEL, address);
  }

  onConnected(handler: (address: string) => void | Promise<void>): Promise<Unsubscribe> {
    return this.state.subscribe(CONNECTED_CHANNEL, handler);
  }
}
