/**
 * Pinned messages (`pinned_messages`): one record per pinned message, in every kind of
 * conversation (a channel's pins are keyed by its `channel:<id>` conversation and the post's
 * id), listed in pin order. At most MAX_PINS per conversation: pins of one conversation take
 * turns in a process, so the count and the insert agree; two api processes pinning in one
 * conversation at the same instant can pass the bound by one (as channel subscriptions can).
 */
import { SerialQueues } from '../../platform/concurrency/serial-queues.js';
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';
import { MAX_PINS, pinLimitReached } from './relation-rules.js';

export interface StoredPin {
  /** `<conversation id>|<message id>` */
  _id: string;
  conversationId: string;
  messageId: string;
  pinnedBy: string;
  pinnedAt: Date;
}

export const PINNED_MESSAGES = 'pinned_messages';

export const pinIndexes: IndexSpec[] = [
  { collection: PINNED_MESSAGES, name: 'by_conversation', key: { conversationId: 1, pinnedAt: 1 } },
  { collection: PINNED_MESSAGES, name: 'by_pinner', key: { pinnedBy: 1 } },
];

const pinId = (conversationId: string, messageId: string) => `${conversationId}|${messageId}`;

export class Pins {
  readonly pins: Collection<StoredPin>;
  private readonly turns = new SerialQueues();

  constructor(store: DocumentStore) {
    this.pins = store.collection<StoredPin>(PINNED_MESSAGES);
  }

  /** Pins the message; answers the pin and whether it is new (a pinned message stays as it was). */
  pin(
    conversationId: string,
    messageId: string,
    by: string,
    at: Date,
  ): Promise<{ pin: StoredPin; added: boolean }> {
    return this.turns.run(conversationId, async () => {
      const existing = await this.pins.findOne({ _id: pinId(conversationId, messageId) });
      if (existing) return { pin: existing, added: false };
      if ((await this.pins.countDocuments({ conversationId })) >= MAX_PINS) throw pinLimitReached();
      const pin: StoredPin = {
        _id: pinId(conversationId, messageId),
        conversationId,
        messageId,
        pinnedBy: by,
        pinnedAt: at,
      };
      await this.pins.insertOne(pin);
      return { pin, added: true };
    });
  }

  /** Answers whether the message was pinned. */
  async unpin(conversationId: string, messageId: string): Promise<boolean> {
    const { deletedCount } = await this.pins.deleteOne({ _id: pinId(conversationId, messageId) });
    return deletedCount > 0;
  }

  /** The conversation's pins, oldest pin first. */
  list(conversationId: string): Promise<StoredPin[]> {
    return this.pins.find({ conversationId }, { sort: { pinnedAt: 1, _id: 1 } });
  }

  /** The ids of the conversation's pinned messages (for `Message.pinned` on a history page). */
  async pinnedIds(conversationId: string): Promise<Set<string>> {
    const pins = await this.pins.find({ conversationId }, { projection: { messageId: 1 } });
    return new Set(pins.map((pin) => pin.messageId));
  }

  /** Every pin of a conversation that ends (a deleted group or channel). */
  async removeConversation(conversationId: string): Promise<void> {
    await this.pins.deleteMany({ conversationId });
  }
}
