/** Stars: private to the user who sets them, gone with the message they mark. */
import type { Collection, DocumentStore, IndexSpec } from '../../platform/store/document-store.js';
import type { StoredMessage } from './stored-message.js';

export interface MessageStar {
  /** `<address>|<message id>` */
  _id: string;
  address: string;
  messageId: string;
  conversationId: string;
  starredAt: Date;
  /** The message's own expiry: a star never outlives what it marks. */
  expiresAt?: Date;
}

export const MESSAGE_STARS = 'message_stars';

export const starIndexes: IndexSpec[] = [
  { collection: MESSAGE_STARS, name: 'by_user', key: { address: 1, starredAt: -1, _id: 1 } },
  { collection: MESSAGE_STARS, name: 'disappear', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];

const starId = (address: string, messageId: string) => `${address}|${messageId}`;

export class Stars {
  readonly stars: Collection<MessageStar>;

  constructor(store: DocumentStore) {
    this.stars = store.collection<MessageStar>(MESSAGE_STARS);
  }

  async star(address: string, message: StoredMessage): Promise<void> {
    const fields = { address, messageId: message._id, conversationId: message.conversationId, ...(message.expiresAt ? { expiresAt: message.expiresAt } : {}) };
    await this.stars.updateOne({ _id: starId(address, message._id) }, { $setOnInsert: { ...fields, starredAt: new Date() } }, { upsert: true });
  }

  async unstar(address: string, messageId: string): Promise<void> {
    await this.stars.deleteOne({ _id: starId(address, messageId) });
  }

  /** Which of these messages the user has starred. */
  async starredAmong(address: string, messageIds: readonly string[]): Promise<Set<string>> {
    if (messageIds.length === 0) return new Set();
    const found = await this.stars.find({ _id: { $in: messageIds.map((id) => starId(address, id)) } }, { projection: { messageId: 1 } });
    return new Set(found.map((star) => star.messageId));
  }
}
