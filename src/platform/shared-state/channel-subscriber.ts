/**
 * The subscriber side of RedisSharedState: where its channels are subscribed in Redis. On one
 * Redis that is one connection in subscriber mode (plain-subscriber.ts); on a Redis Cluster, one
 * connection per master holding the channels of the slots it serves (sharded-subscriptions.ts).
 * Channels are given prefixed; the shared state keeps the listeners and says which channels it
 * wants (`SubscriberEvents.channels`).
 */
export interface ChannelSubscriber {
  /** Resolves once Redis confirmed the subscription; rejects (at once) when it cannot be told. */
  subscribe(channel: string): Promise<void>;
  unsubscribe(channel: string): Promise<void>;
  /** The readiness of the subscriber side: rejects unless every wanted channel is subscribed on a live connection. */
  check(): Promise<void>;
  close(): Promise<void>;
}

/** What a ChannelSubscriber asks of, and tells, the shared state it serves. */
export interface SubscriberEvents {
  /** Every channel that has listeners now, each once (what must be subscribed). */
  channels(): readonly string[];
  message(channel: string, message: string): void;
  /** Delivery on `channel` is established again after it was lost: messages may have been missed meanwhile. */
  restored(channel: string): void;
}
