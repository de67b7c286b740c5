/**
 * The ws pod's subscriptions to users' event streams: one per user with at least one open
 * connection here, fanning each event out to that user's connections on this pod.
 */
import type { ClientConnection } from './client-connection.js';
import type { StreamedEvent, UserEventStream } from '../events/user-event-stream.js';
import { TopicSubscriptions } from './topic-subscriptions.js';

export class UserChannels {
  private readonly subscriptions: TopicSubscriptions<StreamedEvent, ClientConnection>;

  constructor(events: UserEventStream, onEvent: (publishedAt: number) => void) {
    this.subscriptions = new TopicSubscriptions(
      (address, handler) => events.subscribe(address, handler),
      (connection, event) => connection.deliver(event),
      (event) => onEvent(event.publishedAt),
    );
  }

  /** Resolves once the user's events reach this connection; rejects when shared state is away. */
  attach(connection: ClientConnection): Promise<void> {
    return this.subscriptions.add(connection.address, connection);
  }

  detach(connection: ClientConnection): void {
    this.subscriptions.remove(connection.address, connection);
  }
}
