/**
 * Which sessions (devices) have a live /ws connection, on any ws pod: while a pod holds at
 * least one authenticated socket of a session it stays subscribed to that session's presence
 * channel, and `isConnected` asks shared state whether anyone is (PUBSUB NUMSUB). Nothing is
 * ever published there. A subscription is the connection's own: it goes with the socket's
 * close, and with the pod's Redis connection when the pod dies (kill -9), so a dead pod never
 * leaves a device looking online. Push notifications use it to skip the devices that receive
 * their events live.
 */
import type { SharedState, Unsubscribe } from '../platform/shared-state/shared-state.js';

/** Tagged by the session: on a Redis Cluster, its own slot's shard holds it and answers for it. */
const channelOf = (sessionId: string) => `ws:session:{${sessionId}}`;

export class SessionConnections {
  /** Per session on this pod: its open sockets and its channel subscription. */
  private readonly held = new Map<string, { sockets: number; subscribed: Promise<Unsubscribe> }>();

  constructor(private readonly state: SharedState) {}

  /** A socket of the session is open and authenticated here; resolves once other pods can see it. */
  async hold(sessionId: string): Promise<void> {
    let entry = this.held.get(sessionId);
    if (!entry) {
      entry = {
        sockets: 0,
        subscribed: this.state.subscribe(channelOf(sessionId), () => undefined),
      };
      this.held.set(sessionId, entry);
      const created = entry;
      // A failed subscription must not stay cached for the session's next socket.
      created.subscribed.catch(() => {
        if (this.held.get(sessionId) === created) this.held.delete(sessionId);
      });
    }
    entry.sockets += 1;
    await entry.subscribed;
  }

  /** A socket of the session closed here. */
  release(sessionId: string): void {
    const entry = this.held.get(sessionId);
    if (!entry || --entry.sockets > 0) return;
    this.held.delete(sessionId);
    entry.subscribed
      .then((unsubscribe) => unsubscribe())
      .catch(() => {
        // Redis is away; its reconnect will not restore a channel nobody listens to any more.
      });
  }

  /** Whether any ws pod holds a live socket of the session now. */
  isConnected(sessionId: string): Promise<boolean> {
    return this.state.hasSubscribers(channelOf(sessionId));
  }
}
