/**
 * An event that one api area announces to others in the same process, once the change it
 * reports is durable: a block (contacts; location ends the live sessions between the two
 * users), a session's end (identity; push drops the session's subscriptions). The app creates
 * each event before it builds any area (area-events.ts); the announcing area gets a listener
 * that announces it, the reacting areas subscribe while they are built. So neither area needs
 * the other built first, and neither knows the other.
 *
 * `announce` waits for every subscriber. A subscriber handles its own failures (it must not
 * reject): the change stands whatever a subscriber does. An event nobody subscribed to is heard
 * by nobody, as when the reacting area is not part of the process.
 */
export type EventSubscriber<T> = (event: T) => Promise<void>;

/** The side a reacting area gets. */
export interface EventSubscriptions<T> {
  subscribe(subscriber: EventSubscriber<T>): void;
}

export class InProcessEvent<T> implements EventSubscriptions<T> {
  private readonly subscribers: EventSubscriber<T>[] = [];

  subscribe(subscriber: EventSubscriber<T>): void {
    this.subscribers.push(subscriber);
  }

  async announce(event: T): Promise<void> {
    await Promise.all(this.subscribers.map((subscriber) => subscriber(event)));
  }
}
