/**
 * Announcing a stored message: `message.new` to its audience's event streams. The stored
 * message is the outbox record of its own announcement: it is written with `unannounced: true`
 * in its one durable write, and the mark is removed once every stream has the event
 * (AnnouncedMarks, batched). Three ways lead to the publish:
 *
 * - the send, right after the write and still in the conversation's turn, so that a process
 *   announces a conversation's messages in their order;
 * - a retry of the send that finds its message still unannounced (the publish failed, or the
 *   process died before it);
 * - the sweeper (announcement-sweeper.ts), for what nobody retries.
 *
 * Any of them may publish a message that is already announced (its mark not yet written, two
 * pods sweeping at once, a retry racing its original on another pod): the event carries the
 * message's dedupe key, and a user's stream takes one event per key (user-event-stream.ts).
 */
import type { Logger } from '../../platform/logging/logger.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { MessagingEvents } from '../../events/messaging-events.js';
import type { Conversations } from '../conversations/conversations.js';
import { AnnouncedMarks } from './announced-marks.js';
import { audienceOf } from './message-audience.js';
import { messageJson, messageView } from './message-view.js';
import type { StoredMessage } from './stored-message.js';

export class MessageAnnouncer {
  private readonly marks: AnnouncedMarks;
  private readonly unannouncedListeners: ((sentAt: Date) => void)[] = [];

  constructor(
    messages: Collection<StoredMessage>,
    private readonly conversations: Conversations,
    private readonly events: MessagingEvents,
    logger: Logger,
  ) {
    this.marks = new AnnouncedMarks(messages, logger);
  }

  /**
   * Publishes `message.new` to the audience (computed from the message when not given); once
   * every stream has it, the message is marked announced in the next batch. Answers whether
   * it went out; a failure is logged by MessagingEvents and left to a retry or the sweeper.
   */
  async announce(message: StoredMessage, audience?: readonly string[]): Promise<boolean> {
    let published = false;
    try {
      const data = { message: messageJson(messageView(message)) };
      published = await this.events.durable(
        'message.new',
        audience ?? (await audienceOf(this.conversations, message)),
        data,
        {
          dedupeKey: `message.new:${message._id}`,
        },
      );
    } finally {
      if (published) this.marks.add(message._id);
      else for (const listener of this.unannouncedListeners) listener(message.sentAt);
    }
    return published;
  }

  /** Calls `listener` with the sentAt of every message whose announcement failed here (the sweeper wakes for it). */
  onLeftUnannounced(listener: (sentAt: Date) => void): void {
    this.unannouncedListeners.push(listener);
  }

  /** Writes the pending marks now (see AnnouncedMarks.write); resolves once they are written. */
  writeMarks(): Promise<void> {
    return this.marks.write();
  }
}
