/**
 * The media a channel holds, through the media area (media's `HeldMedia`): its avatar while it
 * is the current one, and each post's media while the post exists. The media sweeper keeps an
 * upload exactly as long as it is held; who may download a post's media is media's rule (the
 * channel's readers, `ChannelAccess.mayRead`); channel avatars are public images.
 */
import type { StoredChannel } from './channel.js';
import type { ChannelPosts } from './channel-posts.js';
import type { ChannelReadMarkers } from './channel-read-markers.js';
import type { ChannelReactions } from './channel-reactions.js';
import type { ChannelChangeLog } from './channel-change-log.js';

export interface ChannelAvatarHolder {
  readonly kind: 'channel';
  readonly id: string;
}

export interface ChannelMedia {
  /** 404 unless an upload of `owner`; 410 when deleted; 400 when of another kind. */
  requireOwnUpload(owner: string, mediaId: string, kind: string): Promise<void>;
  /** The checks of `requireOwnUpload` (kind `avatar`), then the channel holds it. */
  holdAvatar(owner: string, mediaId: string, holder: ChannelAvatarHolder): Promise<void>;
  releaseAvatar(mediaId: string, holder: ChannelAvatarHolder): Promise<void>;
  /** The checks of `requireOwnUpload`, then the post holds it (again on a retry: a no-op). */
  attachToPost(
    sender: string,
    mediaId: string,
    kind: string,
    post: { channelId: string; postId: string },
  ): Promise<void>;
  releasePost(mediaId: string, postId: string): Promise<void>;
}

/**
 * A deleted channel's content: its posts' media and its avatar are released, then the posts,
 * their reactions, their change log and the readers' markers go. Repeating it after a crash releases what is still held (releasing is
 * idempotent).
 */
export class ChannelContent {
  constructor(
    private readonly posts: ChannelPosts,
    private readonly media: ChannelMedia,
    private readonly readMarkers: ChannelReadMarkers,
    private readonly reactions: ChannelReactions,
    private readonly changeLog: ChannelChangeLog,
  ) {}

  async remove(channel: StoredChannel): Promise<void> {
    for (const post of await this.posts.withMedia(channel._id))
      await this.media.releasePost(post.mediaId, post._id);
    if (channel.avatarMediaId !== '')
      await this.media.releaseAvatar(channel.avatarMediaId, { kind: 'channel', id: channel._id });
    await this.posts.removeChannel(channel._id);
    await this.readMarkers.removeChannel(channel._id);
    await this.reactions.removeChannel(channel._id);
    await this.changeLog.removeChannel(channel._id);
  }
}
