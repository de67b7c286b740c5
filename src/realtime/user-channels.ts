/**
 * The ws pod's subscriptions to users' event streams: one per user with at least one open
 * connection here, fanning each event out to that user's connections on this pod. When a
 * subscription comes back after the pod lost Redis, every connection of that user catches up
 * from the log: the events published meanwhile never arrive, and the next live one (which would
 * reveal the gap) may be long in coming.
 */
import type { ClientConnection } from './client-connection.js';
import type { StreamedEvent, UserEventStream } from '../events/user-event-stream.js';
import { SpanKind, runInSpan, startRemoteChildSpan } from '../platform/tracing/spans.js';
import type { DeliveryMetrics } from './ws-delivery-metrics.js';
import { TopicSubscriptions } from './topic-subscriptions.js';

export class UserChannels {
  private readonly subscriptions: TopicSubscriptions<StreamedEvent, ClientConnection>;

  constructor(
    events: UserEventStream,
    metrics: Pick<DeliveryMetrics, 'observeFanout' | 'observeDelivered'>,
  ) {
    this.subscriptions = new TopicSubscriptions(
      (address, handler, restored) =>
        events.subscribe(
          address,
          (event) => {
            // The fan-out to this pod's sockets, in the sender's trace when the event carries one.
            void runInSpan(deliverySpan(event), () => handler(event));
            metrics.observeDelivered(event.frame);
          },
          restored,
        ),
      (connection, event) => connection.deliver(event),
      (event) => metrics.observeFanout(event.publishedAt),
      (connection) => connection.catchUp(),
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

function deliverySpan(event: StreamedEvent) {
  if (event.traceparent === undefined) return undefined;
  return startRemoteChildSpan(event.traceparent, 'ws deliver', SpanKind.CONSUMER, {
    'messaging.system': 'redis',
    'messaging.operation.type': 'process',
    'event.durable': event.seq > 0,
  });
}
