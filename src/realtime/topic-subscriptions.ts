/**
 * The ws pod's shared-state subscriptions, one per topic (a user's event channel, a channel's
 * post topic) that at least one listener on this pod needs, fanning each message out to those
 * listeners. Topics nobody here listens to cost nothing: the last listener to leave
 * unsubscribes.
 */
import type { Unsubscribe } from '../platform/shared-state/shared-state.js';

interface TopicEntry<L> {
  readonly listeners: Set<L>;
  readonly subscribed: Promise<Unsubscribe>;
}

export class TopicSubscriptions<M, L> {
  private readonly topics = new Map<string, TopicEntry<L>>();

  /**
   * @param subscribe subscribes to one topic in shared state; `restored` is called each time
   *   its subscription is back after a loss
   * @param deliver hands one message to one listener
   * @param catchUp tells one listener that messages of its topic may have been lost (the
   *   subscription was re-established): it reads them from where they are kept
   */
  constructor(
    private readonly subscribe: (
      topic: string,
      handler: (message: M) => void,
      restored: () => void,
    ) => Promise<Unsubscribe>,
    private readonly deliver: (listener: L, message: M) => void,
    private readonly onMessage: (message: M) => void = () => undefined,
    private readonly catchUp: (listener: L) => void = () => undefined,
  ) {}

  /** Resolves once the topic's messages reach the listener; rejects when shared state is away. */
  async add(topic: string, listener: L): Promise<void> {
    let entry = this.topics.get(topic);
    if (!entry) {
      const listeners = new Set<L>();
      const subscribed = this.subscribe(
        topic,
        (message) => {
          this.onMessage(message);
          for (const each of listeners) this.deliver(each, message);
        },
        () => {
          for (const each of listeners) this.catchUp(each);
        },
      );
      entry = { listeners, subscribed };
      this.topics.set(topic, entry);
      // A failed subscription must not stay cached for the topic's next listener.
      subscribed.catch(() => {
        if (this.topics.get(topic) === entry) this.topics.delete(topic);
      });
    }
    entry.listeners.add(listener);
    await entry.subscribed;
  }

  remove(topic: string, listener: L): void {
    const entry = this.topics.get(topic);
    if (!entry || !entry.listeners.delete(listener) || entry.listeners.size > 0) return;
    this.topics.delete(topic);
    entry.subscribed
      .then((unsubscribe) => unsubscribe())
      .catch(() => {
        // Redis is away; its reconnect will not restore a topic nobody listens to any more.
      });
  }

  /** The listeners of a topic on this pod (none when it is not subscribed). */
  listenersOf(topic: string): ReadonlySet<L> {
    return this.topics.get(topic)?.listeners ?? new Set();
  }

  /** How many topics this pod subscribes to (the metrics). */
  get size(): number {
    return this.topics.size;
  }
}
