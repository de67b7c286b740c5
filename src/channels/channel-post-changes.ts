/**
 * Changes to channel posts (edits, deletions, reaction counts, pins), after messaging's
 * relation rules allowed them (through its `ChannelConversations` port). An edit or a deletion
 * is one conditional write of the post (an edit on the edit count read, a deletion on the post
 * not being deleted yet) that also marks the post as changed and not logged yet; then the change
 * is logged under the channel's next change number (channel-change-log.ts), the frames of the
 * post kept for `/ws` catch-up are replaced by the post as it is now (its `channel.post` and its
 * earlier `channel.post_updated`: a deleted post's ciphertext never comes back through
 * `channels.resume`), the change goes out as a durable `channel.post_updated` (kept for catch-up
 * under its change number, one publish on the channel's topic: a change costs nothing per
 * follower), and the mark is lifted. Only then is the request answered: an acknowledged change
 * is in the store's log. A process that dies before logging leaves the mark, and the sweeper
 * logs the change (channel-change-sweeper.ts); so does a failed publish (Redis away).
 *
 * A deletion releases the post's media first (the sweeper then deletes the blob), so a crash
 * before the post's write leaves a post whose media may be gone (410) until the deletion is
 * repeated, never a tombstone whose blob is kept; its reactions go after it.
 */
import { Binary } from 'bson';
import type { Logger } from '../platform/logging/logger.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import { channelChangeFrame, channelPostFrame } from '../events/channel-post-stream.js';
import type { ChannelPostChange } from '../messaging/conversations/channel-conversations-port.js';
import type { ChannelChangeLog } from './channel-change-log.js';
import { markedUnlogged } from './channel-change-log.js';
import type { ChannelMedia } from './channel-media.js';
import type { ChannelPosts, StoredPost } from './channel-posts.js';
import type { ChannelReactions } from './channel-reactions.js';
import { postJson, postView } from './channel-view.js';

export class ChannelPostChanges {
  constructor(
    private readonly posts: ChannelPosts,
    private readonly media: Pick<ChannelMedia, 'releasePost'>,
    private readonly reactions: ChannelReactions,
    private readonly log: ChannelChangeLog,
    private readonly stream: ChannelPostStream,
    /** Entries a channel's log keeps for catch-up (CHANNEL_REPLAY_POSTS): the post's older changes are gone. */
    private readonly keptEntries: number,
    private readonly logger: Logger,
  ) {}

  /** The edited post, or null when it no longer has `editCount` edits or was deleted. */
  async edit(
    channelId: string,
    postId: string,
    ciphertext: Uint8Array,
    editCount: number,
    at: Date,
  ): Promise<StoredPost | null> {
    const edited = await this.posts.posts.findOneAndUpdate(
      {
        _id: postId,
        channelId,
        deletedAt: { $exists: false },
        ...(editCount === 0
          ? { $or: [{ editCount: { $exists: false } }, { editCount: 0 }] }
          : { editCount }),
      },
      markedUnlogged(
        { $set: { ciphertext: new Binary(ciphertext), editedAt: at }, $inc: { editCount: 1 } },
        'edited',
        at,
      ),
      { returnDocument: 'after' },
    );
    if (edited) {
      this.posts.markedUnlogged(at);
      await this.logged(edited, 'edited');
    }
    return edited;
  }

  /** The tombstone (the post as it is, when it was deleted already). */
  async delete(
    post: StoredPost,
    deletedBy: 'sender' | 'admin',
    deleterAddress: string,
    at: Date,
  ): Promise<StoredPost> {
    if (post.deletedAt) return post;
    if (post.mediaId !== '') await this.media.releasePost(post.mediaId, post._id);
    const tombstone = await this.posts.posts.findOneAndUpdate(
      { _id: post._id, deletedAt: { $exists: false } },
      markedUnlogged(
        {
          $set: { deletedAt: at, deletedBy, deletedByAddress: deleterAddress, mediaId: '' },
          $unset: { ciphertext: '', reactionCounts: '' },
        },
        'deleted',
        at,
      ),
      { returnDocument: 'after' },
    );
    if (!tombstone) return (await this.posts.posts.findOne({ _id: post._id })) ?? post;
    this.posts.markedUnlogged(at);
    await this.reactions.removePost(post._id);
    await this.logged(tombstone, 'deleted');
    return tombstone;
  }

  /**
   * Logs the change of `changed` (read after its write) under the channel's next change
   * number, rewrites the post's kept frames when its content changed, publishes the change and
   * lifts the post's mark. The frame carries the post read after the change was logged, so it
   * holds every change with a lower number (theirs were written before their numbers were
   * taken), and no reader's own keys; `pinned` is set on pin changes only (messaging keeps pins).
   * Answers whether it was published; rejects when the log cannot be written. Either way the
   * mark stays for the sweeper.
   */
  async logged(changed: StoredPost, change: ChannelPostChange, pinned?: boolean): Promise<boolean> {
    const changeSequence = await this.log.record(changed, change);
    const current = (await this.posts.posts.findOne({ _id: changed._id })) ?? changed;
    const view = postView(current);
    if (pinned !== undefined) view.pinned = pinned;
    const json = postJson(view);
    try {
      if (change === 'edited' || change === 'deleted')
        await this.rewriteKept(current, changeSequence, json);
      await this.stream.publish(
        current.channelId,
        changeSequence,
        channelChangeFrame(current.channelId, changeSequence, change, json),
        'changes',
      );
    } catch (error) {
      this.logger.warn(
        { err: error, channelId: current.channelId, changeSequence, change },
        'channel post change not published; the sweeper logs it again',
      );
      return false;
    }
    await this.log
      .markLogged(changed)
      .catch((error: unknown) =>
        this.logger.warn({ err: error, postId: changed._id }, 'channel post change mark kept'),
      );
    return true;
  }

  /** The post's `channel.post` and earlier changes kept for catch-up, replaced by its current state. */
  private async rewriteKept(
    post: StoredPost,
    changeSequence: number,
    json: ReturnType<typeof postJson>,
  ) {
    const { channelId } = post;
    const earlier = (await this.log.ofPost(post._id, this.keptEntries)).filter(
      (record) => record.changeSequence !== changeSequence,
    );
    await Promise.all([
      this.stream.replaceKept(
        channelId,
        post.sequence,
        channelPostFrame(channelId, post.sequence, json),
      ),
      ...earlier.map((record) =>
        this.stream.replaceKept(
          channelId,
          record.changeSequence,
          channelChangeFrame(channelId, record.changeSequence, record.change, json, record.at),
          'changes',
        ),
      ),
    ]);
  }
}
