/**
 * Reactions in direct chats and groups (`message_reactions`): one record per (reactor,
 * message), replaced by the reactor's next reaction and removed on request or with the
 * message. The record holds only ciphertext the reactor's client made: the server learns who
 * reacted to which message and when, never the emoji (messages.proto `ReactToMessage`).
 */
import { Binary } from 'bson';
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';

export interface StoredReaction {
  /** `<message id>|<reactor>` */
  _id: string;
  messageId: string;
  conversationId: string;
  reactorAddress: string;
  ciphertext: Binary;
  reactedAt: Date;
}

export const MESSAGE_REACTIONS = 'message_reactions';

export const reactionIndexes: IndexSpec[] = [
  { collection: MESSAGE_REACTIONS, name: 'by_message', key: { messageId: 1, reactedAt: 1 } },
  // Account walks (moves and deletions) find a reactor's records.
  { collection: MESSAGE_REACTIONS, name: 'by_reactor', key: { reactorAddress: 1 } },
];

const reactionId = (messageId: string, reactor: string) => `${messageId}|${reactor}`;

export class EncryptedReactions {
  readonly reactions: Collection<StoredReaction>;

  constructor(store: DocumentStore) {
    this.reactions = store.collection<StoredReaction>(MESSAGE_REACTIONS);
  }

  /** Sets the reactor's one reaction to the message (an upsert: one durable write). */
  async set(
    message: { messageId: string; conversationId: string },
    reactor: string,
    ciphertext: Uint8Array,
    at: Date,
  ): Promise<StoredReaction> {
    const record: StoredReaction = {
      _id: reactionId(message.messageId, reactor),
      messageId: message.messageId,
      conversationId: message.conversationId,
      reactorAddress: reactor,
      ciphertext: new Binary(ciphertext),
      reactedAt: at,
    };
    const { _id, ...fields } = record;
    await this.reactions.updateOne({ _id }, { $set: fields }, { upsert: true });
    return record;
  }

  /** Removes the reactor's reaction; answers whether there was one. */
  async remove(messageId: string, reactor: string): Promise<boolean> {
    return (
      (await this.reactions.deleteOne({ _id: reactionId(messageId, reactor) })).deletedCount > 0
    );
  }

  /** The reactions of these messages, oldest first, by message id (one read for a page). */
  async of(messageIds: readonly string[]): Promise<Map<string, StoredReaction[]>> {
    const byMessage = new Map<string, StoredReaction[]>();
    if (messageIds.length === 0) return byMessage;
    const found = await this.reactions.find(
      { messageId: { $in: [...messageIds] } },
      { sort: { reactedAt: 1, _id: 1 } },
    );
    for (const reaction of found) {
      const list = byMessage.get(reaction.messageId) ?? [];
      list.push(reaction);
      byMessage.set(reaction.messageId, list);
    }
    return byMessage;
  }

  /** A deleted message's reactions go with its content. */
  async removeOf(messageId: string): Promise<void> {
    await this.reactions.deleteMany({ messageId });
  }
}
