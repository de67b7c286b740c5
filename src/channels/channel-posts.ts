/**
 * A channel's posts (`channel_posts`): stored once each, whatever the number of subscribers,
 * numbered 1, 2, 3, ... by the channel's own sequence, and idempotent by the publisher's
 * `client_message_id`.
 *
 * Numbering (platform/store/sequence-numbering.ts, as for a conversation's messages): a number
 * exists only in the post holding it (unique index on `(channelId, sequence)`), so a crash
 * before the post is durable leaves no hole. A post deleted by its author or an admin stays as
 * a tombstone (DeleteMessage), and posts are removed only with their channel, so the highest
 * stored number is the last one.
 */
import { Binary } from 'bson';
import type { CursorPosition } from '../platform/api/page-cursor.js';
import { SerialQueues } from '../platform/concurrency/serial-queues.js';
import { conflict } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { newId } from '../platform/store/new-id.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';
import { SequenceNumbering } from '../platform/store/sequence-numbering.js';
import type { StoredFranking } from '../messaging/conversations/stored-franking.js';
import type { StoredRelationFields } from '../messaging/messages/stored-message.js';
import type { ChannelPostChange } from '../messaging/conversations/channel-conversations-port.js';
import type { SendAdmission } from '../messaging/messages/send-admission.js';
import { sequencePage } from '../platform/store/sequence-page.js';
import type { SequencePage, SequencePageRequest } from '../platform/store/sequence-page.js';

/**
 * A post's mark until its change is in the channel's change log (channel-change-log.ts),
 * written in the same write as the change.
 */
export interface UnloggedChangeMark {
  /** Present (true) while a change of the post is not logged yet: the partial index's filter. */
  unlogged?: true;
  /** Raised by every change not logged yet: lifting the mark is conditional on it. */
  unloggedChanges?: number;
  /** The latest change not logged yet. */
  unloggedChange?: ChannelPostChange;
  /** When the earliest change not logged yet was made. */
  unloggedSince?: Date;
}

export interface StoredPost extends StoredRelationFields, UnloggedChangeMark {
  _id: string;
  channelId: string;
  sequence: number;
  senderAddress: string;
  clientMessageId: string;
  kind: string;
  /** Absent once the post is deleted. */
  ciphertext?: Binary;
  mediaId: string;
  durationMs: number;
  /** The poll of a `poll` post (the polls area); absent on other posts. */
  pollId?: string;
  sentAt: Date;
  /** Present when the publisher franked the post (moderation.proto). */
  franking?: StoredFranking;
  /**
   * Readers per reaction key, keyed by the key in base64url (a field name must not hold `.`
   * or start with `$`): the post's counts are read with the post (channel-reactions.ts).
   */
  reactionCounts?: Record<string, number>;
}

export type NewPost = Pick<
  StoredPost,
  | 'channelId'
  | 'senderAddress'
  | 'clientMessageId'
  | 'kind'
  | 'mediaId'
  | 'durationMs'
  | 'pollId'
  | 'replyToMessageId'
  | 'mentions'
> & {
  readonly ciphertext: Uint8Array;
  /** A franked post: the sender's commitment, and who tags it once its id and time are known. */
  readonly franking?: {
    readonly commitment: Uint8Array;
    readonly frank: Pick<SendAdmission, 'frank'>;
  };
};

export const CHANNEL_POSTS = 'channel_posts';
const SEQUENCE_INDEX = 'by_channel_sequence';

export const channelPostIndexes: IndexSpec[] = [
  {
    collection: CHANNEL_POSTS,
    name: SEQUENCE_INDEX,
    key: { channelId: 1, sequence: 1 },
    unique: true,
  },
  {
    collection: CHANNEL_POSTS,
    name: 'by_idempotency_key',
    key: { senderAddress: 1, clientMessageId: 1 },
    unique: true,
  },
  { collection: CHANNEL_POSTS, name: 'by_channel_time', key: { channelId: 1, sentAt: -1, _id: 1 } },
  {
    collection: CHANNEL_POSTS,
    name: 'unlogged_changes',
    key: { unloggedSince: 1 },
    partialFilterExpression: { unlogged: true },
  },
];

export class ChannelPosts {
  readonly posts: Collection<StoredPost>;
  /** Requests with one idempotency key take turns, so a retry finds its post instead of racing it. */
  private readonly sameKeyTurns = new SerialQueues();
  private readonly numbering: SequenceNumbering;
  private readonly markListeners: ((at: Date) => void)[] = [];

  constructor(store: DocumentStore) {
    const posts = (this.posts = store.collection<StoredPost>(CHANNEL_POSTS));
    this.numbering = new SequenceNumbering({
      async lastStored(channelId) {
        const [newest] = await posts.find(
          { channelId },
          { sort: { sequence: -1 }, limit: 1, projection: { sequence: 1 } },
        );
        return newest?.sequence ?? 0;
      },
      isTaken: (error) => error instanceof DuplicateKeyError && error.index === SEQUENCE_INDEX,
    });
  }

  /** Calls `listener` whenever this process marks a post's change unlogged: the sweeper wakes for it. */
  onMarkedUnlogged(listener: (at: Date) => void): void {
    this.markListeners.push(listener);
  }

  /** Tells the listeners that a post's change was marked unlogged (markedUnlogged) at `at`. */
  markedUnlogged(at: Date): void {
    for (const listener of this.markListeners) listener(at);
  }

  /**
   * Stores the post under the channel's next number; a retry with the same `client_message_id`
   * and body gets the stored post (`duplicate`), another body 409.
   */
  append(post: NewPost): Promise<{ post: StoredPost; duplicate: boolean }> {
    return this.sameKeyTurns.run(`${post.senderAddress} ${post.clientMessageId}`, async () => {
      const earlier = await this.storedPublish(post);
      if (earlier) return { post: earlier, duplicate: true };
      try {
        return { post: await this.numbered(post), duplicate: false };
      } catch (error) {
        const winner = error instanceof DuplicateKeyError ? await this.storedPublish(post) : null;
        if (!winner) throw error;
        return { post: winner, duplicate: true };
      }
    });
  }

  /** A channel's posts, newest first. */
  page(
    channelId: string,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<StoredPost>> {
    return newestFirstPage(this.posts, { channelId }, 'sentAt', limit, after);
  }

  /** A page of the channel's posts by number, in ListMessages' terms (its cursors name `conversationId`). */
  history(
    channelId: string,
    conversationId: string,
    request: SequencePageRequest,
  ): Promise<SequencePage<StoredPost>> {
    return sequencePage(
      this.posts,
      conversationId,
      (range) => ({ channelId, ...(Object.keys(range).length > 0 ? { sequence: range } : {}) }),
      request,
    );
  }

  /** One post of the channel, or null (ids longer than ever issued are not looked up). */
  async find(channelId: string, postId: string): Promise<StoredPost | null> {
    return postId.length > 64 ? null : this.posts.findOne({ _id: postId, channelId });
  }

  /** These posts of the channel, in no particular order. */
  findMany(channelId: string, postIds: readonly string[]): Promise<StoredPost[]> {
    return this.posts.find({ _id: { $in: postIds.filter((id) => id.length <= 64) }, channelId });
  }

  /** Posts after `afterSequence` that mention `address` or `@everyone` (its unread mentions). */
  countMentions(channelId: string, address: string, afterSequence: number): Promise<number> {
    return this.posts.countDocuments({
      channelId,
      sequence: { $gt: afterSequence },
      deletedAt: { $exists: false },
      mentions: { $in: [address, '@everyone'] },
    });
  }

  /** The channel's last post (the highest number: posts are removed only with their channel). */
  async newest(channelId: string): Promise<StoredPost | null> {
    const [newest] = await this.posts.find({ channelId }, { sort: { sequence: -1 }, limit: 1 });
    return newest ?? null;
  }

  /** The ids and media of a channel's posts that carry media. */
  withMedia(channelId: string): Promise<Pick<StoredPost, '_id' | 'mediaId'>[]> {
    return this.posts.find(
      { channelId, mediaId: { $ne: '' } },
      { projection: { _id: 1, mediaId: 1 } },
    );
  }

  async removeChannel(channelId: string): Promise<void> {
    await this.posts.deleteMany({ channelId });
    this.numbering.forget(channelId);
  }

  /** The stored post of this idempotency key: null if none, 409 when its body differs. */
  private async storedPublish(post: NewPost): Promise<StoredPost | null> {
    const stored = await this.posts.findOne({
      senderAddress: post.senderAddress,
      clientMessageId: post.clientMessageId,
    });
    if (!stored) return null;
    const same =
      stored.channelId === post.channelId &&
      stored.kind === post.kind &&
      stored.mediaId === post.mediaId &&
      stored.durationMs === post.durationMs &&
      (stored.pollId ?? '') === (post.pollId ?? '') &&
      (stored.replyToMessageId ?? '') === (post.replyToMessageId ?? '') &&
      (stored.mentions ?? []).join() === (post.mentions ?? []).join() &&
      Buffer.from(stored.franking?.commitment.buffer ?? []).equals(
        Buffer.from(post.franking?.commitment ?? []),
      ) &&
      // An edited or deleted post is no longer what its retry carries: the retry is the same post.
      (stored.editCount !== undefined ||
        stored.deletedAt !== undefined ||
        Buffer.from(stored.ciphertext?.buffer ?? []).equals(Buffer.from(post.ciphertext)));
    if (!same) throw conflict('client_message_id was already used for a different post');
    return stored;
  }

  private numbered(post: NewPost): Promise<StoredPost> {
    return this.numbering.append(post.channelId, {
      write: async (sequence) => {
        const { replyToMessageId, mentions, franking, ...fields } = post;
        const stored: StoredPost = {
          _id: newId(),
          ...fields,
          ...(replyToMessageId ? { replyToMessageId } : {}),
          ...(mentions?.length ? { mentions } : {}),
          ciphertext: new Binary(post.ciphertext),
          sequence,
          sentAt: new Date(),
        };
        if (franking) stored.franking = frankedPost(stored, franking.commitment, franking.frank);
        await this.posts.insertOne(stored);
        return stored;
      },
    });
  }
}

/** A franked post's commitment and the server's tag over it, its id, channel, sender and time. */
function frankedPost(
  post: StoredPost,
  commitment: Uint8Array,
  franking: Pick<SendAdmission, 'frank'>,
): StoredFranking {
  const { tag, keyId } = franking.frank({
    messageId: post._id,
    conversationId: `channel:${post.channelId}`,
    senderAddress: post.senderAddress,
    sentAt: post.sentAt,
    commitment,
  });
  return { commitment: new Binary(commitment), tag: new Binary(tag), keyId };
}
