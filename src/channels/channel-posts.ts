/**
 * A channel's posts (`channel_posts`): stored once each, whatever the number of subscribers,
 * numbered 1, 2, 3, ... by the channel's own sequence, and idempotent by the publisher's
 * `client_message_id`.
 *
 * Numbering: a number exists only in the post holding it (unique index on
 * `(channelId, sequence)`), so a crash before the post is durable leaves no hole. Each process
 * appends one post per channel at a time and remembers the last number; when another process
 * took it, the insert meets the unique index and the number is read again. Posts are never
 * deleted one by one (only with their channel), so the highest stored number is the last one.
 */
import { Binary } from 'bson';
import type { CursorPosition } from '../platform/api/page-cursor.js';
import { SerialQueues } from '../platform/concurrency/serial-queues.js';
import { conflict, unavailable } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { newId } from '../platform/store/new-id.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';

export interface StoredPost {
  _id: string;
  channelId: string;
  sequence: number;
  senderAddress: string;
  clientMessageId: string;
  kind: string;
  ciphertext: Binary;
  mediaId: string;
  durationMs: number;
  sentAt: Date;
}

export type NewPost = Pick<StoredPost, 'channelId' | 'senderAddress' | 'clientMessageId' | 'kind' | 'mediaId' | 'durationMs'> & { readonly ciphertext: Uint8Array };

export const CHANNEL_POSTS = 'channel_posts';
const SEQUENCE_INDEX = 'by_channel_sequence';

export const channelPostIndexes: IndexSpec[] = [
  { collection: CHANNEL_POSTS, name: SEQUENCE_INDEX, key: { channelId: 1, sequence: 1 }, unique: true },
  { collection: CHANNEL_POSTS, name: 'by_idempotency_key', key: { senderAddress: 1, clientMessageId: 1 }, unique: true },
  { collection: CHANNEL_POSTS, name: 'by_channel_time', key: { channelId: 1, sentAt: -1, _id: 1 } },
];

/** Other processes taking the number this many times in a row: the publish is refused (503) to be retried. */
const MAX_ATTEMPTS = 10;
/** Channels whose last number a process keeps; the least recently used is read again when needed. */
const REMEMBERED_CHANNELS = 10_000;

export class ChannelPosts {
  readonly posts: Collection<StoredPost>;
  private readonly turns = new SerialQueues();
  private readonly lastNumbers = new Map<string, number>();

  constructor(store: DocumentStore) {
    this.posts = store.collection<StoredPost>(CHANNEL_POSTS);
  }

  /**
   * Stores the post under the channel's next number; a retry with the same `client_message_id`
   * and body gets the stored post (`duplicate`), another body 409.
   */
  append(post: NewPost): Promise<{ post: StoredPost; duplicate: boolean }> {
    return this.turns.run(`${post.senderAddress} ${post.clientMessageId}`, async () => {
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
  page(channelId: string, limit: number, after: CursorPosition | undefined): Promise<NewestFirstPage<StoredPost>> {
    return newestFirstPage(this.posts, { channelId }, 'sentAt', limit, after);
  }

  async removeChannel(channelId: string): Promise<void> {
    await this.posts.deleteMany({ channelId });
    this.lastNumbers.delete(channelId);
  }

  /** The stored post of this idempotency key: null if none, 409 when its body differs. */
  private async storedPublish(post: NewPost): Promise<StoredPost | null> {
    const stored = await this.posts.findOne({ senderAddress: post.senderAddress, clientMessageId: post.clientMessageId });
    if (!stored) return null;
    const same =
      stored.channelId === post.channelId &&
      stored.kind === post.kind &&
      stored.mediaId === post.mediaId &&
      stored.durationMs === post.durationMs &&
      Buffer.from(stored.ciphertext.buffer).equals(Buffer.from(post.ciphertext));
    if (!same) throw conflict('client_message_id was already used for a different post');
    return stored;
  }

  private numbered(post: NewPost): Promise<StoredPost> {
    return this.turns.run(post.channelId, async () => {
      for (let attempt = 1; ; attempt++) {
        const sequence = (await this.lastNumber(post.channelId)) + 1;
        const stored: StoredPost = { _id: newId(), ...post, ciphertext: new Binary(post.ciphertext), sequence, sentAt: new Date() };
        try {
          await this.posts.insertOne(stored);
          this.remember(post.channelId, sequence);
          return stored;
        } catch (error) {
          if (!(error instanceof DuplicateKeyError && error.index === SEQUENCE_INDEX)) throw error;
          this.lastNumbers.delete(post.channelId);
          if (attempt === MAX_ATTEMPTS) throw unavailable('Too many concurrent posts in this channel; retry');
        }
      }
    });
  }

  private async lastNumber(channelId: string): Promise<number> {
    const known = this.lastNumbers.get(channelId);
    if (known !== undefined) return known;
    const [newest] = await this.posts.find({ channelId }, { sort: { sequence: -1 }, limit: 1, projection: { sequence: 1 } });
    const last = newest?.sequence ?? 0;
    this.remember(channelId, last);
    return last;
  }

  private remember(channelId: string, last: number): void {
    this.lastNumbers.delete(channelId);
    this.lastNumbers.set(channelId, last);
    if (this.lastNumbers.size > REMEMBERED_CHANNELS) this.lastNumbers.delete(this.lastNumbers.keys().next().value!);
  }
}
