/**
 * The ws pod's subscriptions: one shared-state subscription per user with at least one open
 * connection here, fanning each event out to that user's connections on this pod. Users with
 * no connection here cost nothing.
 */
import type { Unsubscribe } from '../platform/shared-state/shared-state.js';
import type { ClientConnection } from './client-connection.js';
import type { UserEventStream } from './events/user-event-stream.js';

interface UserEntry {
  readonly connections: Set<ClientConnection>;
  readonly subscribed: Promise<Unsubscribe>;
}

export class UserChannels {
  private readonly users = new Map<string, UserEntry>();

  constructor(
    private readonly events: UserEventStream,
    private readonly onEvent: (publishedAt: number) => void,
  ) {}

  /** Resolves once the user's events reach this connection; rejects when shared state is away. */
  async attach(connection: ClientConnection): Promise<void> {
    let entry = this.users.get(connection.address);
    if (!entry) {
      const connections = new Set<ClientConnection>();
      const subscribed = this.events.subscribe(connection.address, (event) => {
        this.onEvent(event.publishedAt);
        for (const each of connections) each.deliver(event);
      });
      entry = { connections, subscribed };
      this.users.set(connection.address, entry);
      // A failed subscription must not stay cached for the user's next connection.
      subscribed.catch(() => {
        if (this.users.get(connection.address) === entry) this.users.delete(connection.address);
      });
    }
    entry.connections.add(connection);
    await entry.subscribed;
  }

  detach(connection: ClientConnection): void {
    const entry = this.users.get(connection.address);
    if (!entry || !entry.connections.delete(connection) || entry.connections.size > 0) return;
    this.users.delete(connection.address);
    entry.subscribed.then((unsubscribe) => unsubscribe()).catch(() => {
      // Redis is away; its reconnect will not restore a channel nobody listens to any more.
    });
  }
}
