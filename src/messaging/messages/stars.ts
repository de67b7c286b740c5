/**
 * Stars: private to the user who sets them, gone with the message they mark (expired, deleted
 * for everyone, or deleted for the user). Only a message the user can read can be starred or
 * unstarred; listing shows the starred messages still visible and not deleted.
 */
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../../platform/errors/api-error.js';
import type {
  Collection,
  DocumentStore,
  IndexSpec,
  StoreFilter,
} from '../../platform/store/document-store.js';
import { newestFirstPage } from '../../platform/store/newest-first-page.js';
import type { Conversations } from '../conversations/conversations.js';
import type { StoredMessage } from './stored-message.js';
import { isVisibleTo, visibleTo } from './visibility.js';

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
  private readonly stars: Collection<MessageStar>;

  constructor(
    store: DocumentStore,
    private readonly messages: Collection<StoredMessage>,
    private readonly conversations: Conversations,
  ) {
    this.stars = store.collection<MessageStar>(MESSAGE_STARS);
  }

  async star(address: string, messageId: string): Promise<void> {
    const message = await this.readable(address, messageId);
    const fields = {
      address,
      messageId: message._id,
      conversationId: message.conversationId,
      ...(message.expiresAt ? { expiresAt: message.expiresAt } : {}),
    };
    await this.stars.updateOne(
      { _id: starId(address, message._id) },
      { $setOnInsert: { ...fields, starredAt: new Date() } },
      { upsert: true },
    );
  }

  async unstar(address: string, messageId: string): Promise<void> {
    await this.readable(address, messageId);
    await this.stars.deleteOne({ _id: starId(address, messageId) });
  }

  /** Which of these messages the user has starred. */
  async starredAmong(address: string, messageIds: readonly string[]): Promise<Set<string>> {
    if (messageIds.length === 0) return new Set();
    const found = await this.stars.find(
      { _id: { $in: messageIds.map((id) => starId(address, id)) } },
      { projection: { messageId: 1 } },
    );
    return new Set(found.map((star) => star.messageId));
  }

  /** The user's starred messages, most recently starred first, in one conversation or all. */
  async listStarred(
    address: string,
    conversationId: string | undefined,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<{ messages: StoredMessage[]; nextCursor: string }> {
    const scope: StoreFilter<MessageStar> =
      conversationId === undefined ? { address } : { address, conversationId };
    const page = await newestFirstPage(this.stars, scope, 'starredAt', limit, after);
    const stored = await this.messages.find({
      _id: { $in: page.items.map((star) => star.messageId) },
      deletedAt: { $exists: false },
      ...visibleTo(address, new Date()),
    });
    const byId = new Map(stored.map((message) => [message._id, message]));
    return {
      messages: page.items.flatMap((star) => byId.get(star.messageId) ?? []),
      nextCursor: page.nextCursor,
    };
  }

  /** Stars go with their message's content (a deletion for everyone). */
  async removeOf(messageId: string): Promise<void> {
    await this.stars.deleteMany({ messageId });
  }

  /** The user's own star goes when it deletes the message for itself. */
  async removeOwn(address: string, messageId: string): Promise<void> {
    await this.stars.deleteOne({ _id: starId(address, messageId) });
  }

  /** A message the user may read: in one of its conversations and visible to it. */
  private async readable(address: string, messageId: string): Promise<StoredMessage> {
    if (messageId === '') throw invalidArgument('message_id is required');
    const message = messageId.length <= 64 ? await this.messages.findOne({ _id: messageId }) : null;
    const participates = message
      ? message.conversationId.startsWith('dm:')
        ? message.conversationId.split(':').includes(address)
        : (await this.conversations.member(message.conversationId, address)) !== null
      : false;
    if (!message || !participates || !isVisibleTo(message, address, new Date()))
      throw notFound('No such message');
    return message;
  }
}
