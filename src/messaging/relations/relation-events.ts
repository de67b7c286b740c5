/**
 * Telling the participants of a direct chat or group that a message changed: a durable event
 * (numbered, replayed on reconnect like `message.new`) to everyone who can read the message,
 * including the caller's own other devices, after the change is durable. An edit or a deletion
 * also rewrites the message's earlier events still kept for replay (`message.new`, earlier
 * `message.edited`), so replay hands out only the current content or the tombstone: the
 * events are numbered, not copied, so scrubbing them in place keeps every client's position
 * valid (docs/realtime.md). Channel posts change through the channels area instead.
 */
import type { MessagingEvents } from '../../events/messaging-events.js';
import type { DurableEventType } from '../../events/event-envelope.js';
import type { Conversations } from '../conversations/conversations.js';
import { audienceOf } from '../messages/message-audience.js';
import { messageJson, messageView } from '../messages/message-view.js';
import type { StoredMessage } from '../messages/stored-message.js';

export const editDedupeKey = (messageId: string, editCount: number) =>
  `message.edited:${messageId}:${editCount}`;

export class RelationEvents {
  constructor(
    private readonly conversations: Conversations,
    private readonly events: MessagingEvents,
  ) {}

  /** Who hears of a change to `message`: those who can read it (its sender alone if withheld). */
  async readersOf(message: StoredMessage): Promise<string[]> {
    if (message.groupId === '') return audienceOf(this.conversations, message);
    return this.conversations.readersOf(message.conversationId, message.sequence);
  }

  /** A durable event about `message` to its readers (or to `recipients`). */
  async tell(
    type: DurableEventType,
    message: StoredMessage,
    data: Record<string, unknown>,
    options: { recipients?: readonly string[]; dedupeKey?: string } = {},
  ): Promise<void> {
    const recipients = options.recipients ?? (await this.readersOf(message));
    await this.events.durable(type, recipients, data, { dedupeKey: options.dedupeKey });
  }

  /**
   * Rewrites the message's `message.new` and its `message.edited` events before the current
   * one (all of them for a deletion) in its readers' replay logs to the message as it is now.
   */
  async scrubLogged(message: StoredMessage, readers: readonly string[]): Promise<void> {
    const data = { message: messageJson(messageView(message)) };
    const edits = message.editCount ?? 0;
    const lastKept = message.deletedAt ? edits : edits - 1;
    await Promise.all([
      this.events.rewrite('message.new', readers, `message.new:${message._id}`, data),
      ...Array.from({ length: Math.max(0, lastKept) }, (_, i) =>
        this.events.rewrite('message.edited', readers, editDedupeKey(message._id, i + 1), data),
      ),
    ]);
  }
}
