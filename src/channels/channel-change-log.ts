/**
 * The change log of a channel's posts (`channel_post_changes`): every edit, deletion, pin, unpin
 * and batch of reaction count changes of a post is a record numbered 1, 2, 3, ... by the
 * channel's own change sequence (`change_sequence` on `channel.post_updated`, channels.proto),
 * so a reconnecting follower catches up on changes exactly as on posts: from the last number it
 * holds, each once, in order.
 *
 * Why a sequence of its own rather than the posts' numbers: a post's number is its place in the
 * history (paging, unread counts as the latest number minus the reader's marker, replies), so a
 * change cannot take one without leaving holes there. Numbered like posts
 * (platform/store/sequence-numbering.ts, unique index `(channelId, changeSequence)`): a number
 * exists only in its record, never given twice, across kill -9 and several api processes.
 *
 * A record holds no content: the frame sent for it carries the post as it is when the change is
 * logged (channel-post-changes.ts), so a change logged after another of the same post always
 * carries both, and a deleted post's ciphertext lives nowhere but in the post until deleted.
 *
 * Until its change is logged a post carries a mark (`unlogged`), written in the same write as
 * the change itself: the request logs its change at once and lifts the mark; reaction changes
 * are left marked and logged in batches by channel-change-sweeper.ts (latest counts per post),
 * which also logs a change whose process died before logging it.
 */
import type { ChannelPostChange } from '../messaging/conversations/channel-conversations-port.js';
import type {
  Collection,
  DocumentStore,
  IndexSpec,
  StoreUpdate,
} from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { newId } from '../platform/store/new-id.js';
import { SequenceNumbering } from '../platform/store/sequence-numbering.js';
import type { StoredPost } from './channel-posts.js';

export interface StoredPostChange {
  _id: string;
  channelId: string;
  changeSequence: number;
  postId: string;
  change: ChannelPostChange;
  at: Date;
}

export const CHANNEL_POST_CHANGES = 'channel_post_changes';
const CHANGE_SEQUENCE_INDEX = 'by_channel_change';

export const channelChangeIndexes: IndexSpec[] = [
  {
    collection: CHANNEL_POST_CHANGES,
    name: CHANGE_SEQUENCE_INDEX,
    key: { channelId: 1, changeSequence: 1 },
    unique: true,
  },
  { collection: CHANNEL_POST_CHANGES, name: 'by_post', key: { postId: 1, changeSequence: -1 } },
];

/**
 * The update operators that mark a post's change as not logged yet, to merge into the change's
 * own write (`$inc`, `$set` and `$min` of the change keep theirs).
 */
export function markedUnlogged(
  update: StoreUpdate<StoredPost>,
  change: ChannelPostChange,
  at: Date,
): StoreUpdate<StoredPost> {
  return {
    ...update,
    $inc: { ...update.$inc, unloggedChanges: 1 },
    $set: { ...update.$set, unlogged: true, unloggedChange: change },
    $min: { ...update.$min, unloggedSince: at },
  };
}

export class ChannelChangeLog {
  readonly changes: Collection<StoredPostChange>;
  private readonly numbering: SequenceNumbering;

  constructor(
    store: DocumentStore,
    private readonly posts: Collection<StoredPost>,
  ) {
    const changes = (this.changes = store.collection<StoredPostChange>(CHANNEL_POST_CHANGES));
    this.numbering = new SequenceNumbering({
      async lastStored(channelId) {
        const [newest] = await changes.find(
          { channelId },
          { sort: { changeSequence: -1 }, limit: 1, projection: { changeSequence: 1 } },
        );
        return newest?.changeSequence ?? 0;
      },
      isTaken: (error) =>
        error instanceof DuplicateKeyError && error.index === CHANGE_SEQUENCE_INDEX,
    });
  }

  /** Logs a change of the post under the channel's next change number; resolves once durable. */
  record(post: Pick<StoredPost, '_id' | 'channelId'>, change: ChannelPostChange): Promise<number> {
    return this.numbering.append(post.channelId, {
      write: async (changeSequence) => {
        await this.changes.insertOne({
          _id: newId(),
          channelId: post.channelId,
          changeSequence,
          postId: post._id,
          change,
          at: new Date(),
        });
        return changeSequence;
      },
    });
  }

  /** The post's latest logged changes, newest first (at most `limit`: those that may still be kept for catch-up). */
  ofPost(postId: string, limit: number): Promise<StoredPostChange[]> {
    return this.changes.find({ postId }, { sort: { changeSequence: -1 }, limit });
  }

  /**
   * Lifts the post's mark if no change came after the `unloggedChanges` it had when read
   * (else it stays, for the sweeper to log the later one).
   */
  async markLogged(post: Pick<StoredPost, '_id' | 'unloggedChanges'>): Promise<void> {
    if (post.unloggedChanges === undefined) return;
    await this.posts.updateOne(
      { _id: post._id, unloggedChanges: post.unloggedChanges },
      { $unset: { unlogged: '', unloggedChanges: '', unloggedChange: '', unloggedSince: '' } },
    );
  }

  /** Posts whose change is still unlogged since before `cutoff`, the earliest first. */
  unloggedBefore(cutoff: Date, limit: number): Promise<StoredPost[]> {
    return this.posts.find(
      { unlogged: true, unloggedSince: { $lt: cutoff } },
      { sort: { unloggedSince: 1 }, limit },
    );
  }

  async removeChannel(channelId: string): Promise<void> {
    await this.changes.deleteMany({ channelId });
    this.numbering.forget(channelId);
  }
}
