/**
 * Pub/sub on one Redis: one connection in subscriber mode (a subscribed connection is dedicated
 * to its subscriptions). ioredis resubscribes by itself after a reconnect (`autoResubscribe`, its
 * default); this class subscribes again too, to learn when that took effect and tell the
 * shared state (`restored`).
 *
 * SUBSCRIBE is sent for every call (Redis treats a repeat as a no-op), and SUBSCRIBE and
 * UNSUBSCRIBE travel in order on the one connection, so a racing unsubscribe of a channel's last
 * listener and a new subscribe always end subscribed.
 */
import type { Redis } from 'ioredis';
import type { ChannelSubscriber, SubscriberEvents } from './channel-subscriber.js';
import { closeConnection } from './redis-connection.js';

export class PlainSubscriber implements ChannelSubscriber {
  constructor(
    private readonly connection: Redis,
    private readonly events: SubscriberEvents,
  ) {
    connection.on('message', (channel: string, message: string) =>
      events.message(channel, message),
    );
    let connectedBefore = false;
    connection.on('ready', () => {
      if (connectedBefore) void this.resubscribe();
      connectedBefore = true;
    });
  }

  async subscribe(channel: string): Promise<void> {
    await this.connection.subscribe(channel);
  }

  async unsubscribe(channel: string): Promise<void> {
    await this.connection.unsubscribe(channel);
  }

  async check(): Promise<void> {
    await this.connection.ping();
  }

  close(): Promise<void> {
    return closeConnection(this.connection);
  }

  /**
   * After a reconnect: subscribes every channel again (a no-op where ioredis's own
   * resubscription came first) and, once Redis confirmed, says so. A connection lost again
   * meanwhile gets its own 'ready' and another try.
   */
  private async resubscribe(): Promise<void> {
    const channels = this.events.channels();
    if (channels.length === 0) return;
    try {
      await Promise.all(channels.map((channel) => this.connection.subscribe(channel)));
    } catch {
      return;
    }
    for (const channel of channels) this.events.restored(channel);
  }
}
