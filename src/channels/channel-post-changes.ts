/**
 * Edits and deletions of channel posts, after messaging's relation rules allowed them (through
 * its `ChannelConversations` port): each is one conditional write of the post (an edit on the
 * edit count read, a deletion on the post not being deleted yet), then the post's frame kept
 * for `/ws` catch-up is replaced by the post as it is now (a deleted post's ciphertext never
 * comes back through `channels.resume`), and the followers connected now get a
 * `channel.post_updated` frame (one publish on the channel's topic, like a post: changes cost
 * nothing per subscriber). A reader who was away reads the current post over REST.
 *
 * A deletion releases the post's media first (the sweeper then deletes the blob), so a crash
 * before the post's write leaves a post whose media may be gone (410) until the deletion is
 * repeated, never a tombstone whose blob is kept; its reactions go after it.
 */
import { Binary } from 'bson';
import type { Message } from '../gen/service/v1/messages_pb.js';
import type { Logger } from '../platform/logging/logger.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import { channelPostFrame } from '../events/channel-post-stream.js';
import type { ChannelPostChange } from '../messaging/conversations/channel-conversations-port.js';
import type { ChannelMedia } from './channel-media.js';
import type { ChannelPosts, StoredPost } from './channel-posts.js';
import type { ChannelReactions } from './channel-reactions.js';
import { postJson, postView } from './channel-view.js';

export class ChannelPostChanges {
  constructor(
    private readonly posts: ChannelPosts,
    private readonly media: Pick<ChannelMedia, 'releasePost'>,
    private readonly reactions: ChannelReactions,
    private readonly stream: ChannelPostStream,
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
      { $set: { ciphertext: new Binary(ciphertext), editedAt: at }, $inc: { editCount: 1 } },
      { returnDocument: 'after' },
    );
    if (edited) await this.told(edited, 'edited');
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
      {
        $set: { deletedAt: at, deletedBy, deletedByAddress: deleterAddress, mediaId: '' },
        $unset: { ciphertext: '', reactionCounts: '' },
      },
      { returnDocument: 'after' },
    );
    if (!tombstone) return (await this.posts.posts.findOne({ _id: post._id })) ?? post;
    await this.reactions.removePost(post._id);
    await this.told(tombstone, 'deleted');
    return tombstone;
  }

  /**
   * Replaces the kept catch-up frame of an edited or deleted post, then tells the connected
   * followers (`channel.post_updated`, the post without any reader's own keys); reactions and
   * pins leave the content as it is and only go to the followers.
   */
  async told(post: StoredPost, change: ChannelPostChange, view?: Message): Promise<void> {
    const json = postJson(view ?? postView(post));
    try {
      if (change === 'edited' || change === 'deleted')
        await this.stream.replaceKept(
          post.channelId,
          post.sequence,
          channelPostFrame(post.channelId, post.sequence, json),
        );
      await this.stream.publishEphemeral(post.channelId, 'channel.post_updated', {
        change,
        post: json,
      });
    } catch (error) {
      this.logger.warn(
        { err: error, channelId: post.channelId, sequence: post.sequence, change },
        'channel post change not published; readers re-read it over REST',
      );
    }
  }
}
