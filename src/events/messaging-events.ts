/**
 * What the messaging services tell users' connections. The store is the record: an event is
 * published only after the change it announces is durable, and a failed publish (shared state
 * away) does not undo or fail the request: the connections learn about it at their next
 * catch-up or resync, so it is logged, not thrown. A caller that must make sure the event goes
 * out (new messages: message-announcer.ts) is told whether it did.
 */
import type { Logger } from '../platform/logging/logger.js';
import { SpanKind, currentTraceparent, inChildSpan } from '../platform/tracing/spans.js';
import { eventJson } from './event-envelope.js';
import { withTraceparent } from './event-trace.js';
import type { DurableEventType, EphemeralEventType } from './event-envelope.js';
import type { UserEventStream } from './user-event-stream.js';

export class MessagingEvents {
  constructor(
    private readonly stream: UserEventStream,
    private readonly logger: Logger,
  ) {}

  /**
   * Kept for replay and numbered, for every listed user (each gets its own number). Answers
   * whether every user's stream has it. With `dedupeKey` (what the event announces), a user's
   * stream that already has an event of that key does not take it again (user-event-stream.ts),
   * so announcing something again after a failure reaches nobody twice.
   */
  async durable(
    type: DurableEventType,
    recipients: Iterable<string>,
    data: unknown,
    options: { dedupeKey?: string } = {},
  ): Promise<boolean> {
    return traced(type, () => {
      const event = withTraceparent(eventJson(type, data), currentTraceparent());
      return this.each(recipients, type, (address) =>
        this.stream.publishDurable(address, event, options.dedupeKey),
      );
    });
  }

  /**
   * Replaces, in each recipient's replay log, the kept event of `dedupeKey` with a new event of
   * `type` and `data` (its number unchanged): an edited or deleted message's earlier events
   * then replay its current state, never the replaced or deleted content. Answers whether
   * every stream was reached (failures are logged; an event already gone needs nothing).
   */
  rewrite(
    type: DurableEventType,
    recipients: Iterable<string>,
    dedupeKey: string,
    data: unknown,
  ): Promise<boolean> {
    const event = eventJson(type, data);
    return this.each(recipients, type, (address) =>
      this.stream.rewriteLogged(address, dedupeKey, event),
    );
  }

  /** For the connections open at this moment; never kept. */
  async ephemeral(
    type: EphemeralEventType,
    recipients: Iterable<string>,
    data: unknown,
  ): Promise<void> {
    await traced(type, () => {
      const event = withTraceparent(eventJson(type, data), currentTraceparent());
      return this.each(recipients, type, (address) => this.stream.publishEphemeral(address, event));
    });
  }

  /** Publishes to every recipient; answers whether all succeeded (failures are logged). */
  private async each(
    recipients: Iterable<string>,
    type: string,
    publish: (address: string) => Promise<unknown>,
  ): Promise<boolean> {
    const results = await Promise.allSettled([...new Set(recipients)].map(publish));
    const failures = results.filter((result) => result.status === 'rejected');
    if (failures.length > 0) {
      this.logger.warn(
        { err: (failures[0] as PromiseRejectedResult).reason, type, failed: failures.length },
        'event not published; clients will catch up from the store',
      );
    }
    return failures.length === 0;
  }
}

/**
 * The publish as a producer span of the request that publishes (none when it is not traced): the
 * event carries its context, so each ws pod's delivery joins the sender's trace.
 */
function traced<T>(type: string, publish: () => Promise<T>): Promise<T> {
  return Promise.resolve(
    inChildSpan(
      `publish ${type}`,
      { 'messaging.system': 'redis', 'messaging.operation.type': 'publish', 'event.type': type },
      publish,
      SpanKind.PRODUCER,
    ),
  );
}
