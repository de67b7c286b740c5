/**
 * Media that groups, channels and stories hold: a group's or channel's avatar while it is the
 * current one, the media of a channel's posts while the post exists, a story's until it expires. Each use is a reference on
 * the item (media-item.ts), so the sweeper keeps the item until the use ends: the group or
 * channel replaces its avatar or ends, the channel (and with it its posts) is deleted.
 * Holding and releasing are idempotent, so a retried request or a resumed deletion repeats
 * them safely.
 */
import type { MediaItem, MediaReference } from './media-item.js';
import { ignoreMissing } from './media-items.js';
import type { MediaItems } from './media-items.js';
import { requireOwnUpload } from './own-upload.js';

/** Who holds an avatar: a group or a channel, by id. */
export interface AvatarHolder {
  readonly kind: 'group' | 'channel';
  readonly id: string;
}

/** A channel post holding media. */
export interface PostHolder {
  readonly channelId: string;
  readonly postId: string;
}

export class HeldMedia {
  constructor(private readonly items: MediaItems) {}

  /** 404 unless an upload of `owner`; 410 when deleted; 400 when of another kind. */
  async requireOwnUpload(owner: string, mediaId: string, kind: string): Promise<void> {
    await requireOwnUpload(this.items, owner, mediaId, kind);
  }

  /** Makes one of `owner`'s avatar uploads the holder's avatar (the caller releases the one it replaces). */
  async holdAvatar(owner: string, mediaId: string, holder: AvatarHolder): Promise<void> {
    await this.hold(owner, mediaId, 'avatar', {
      kind: `${holder.kind}_avatar`,
      id: holder.id,
      conversationId: '',
      until: null,
      grantsAccess: true,
    });
  }

  async releaseAvatar(mediaId: string, holder: AvatarHolder): Promise<void> {
    await this.release(mediaId, `${holder.kind}_avatar`, holder.id);
  }

  /** Records the post as a reference of the sender's upload of kind `kind`. */
  async attachToPost(
    sender: string,
    mediaId: string,
    kind: string,
    post: PostHolder,
  ): Promise<void> {
    await this.hold(sender, mediaId, kind, {
      kind: 'channel_post',
      id: post.postId,
      conversationId: post.channelId,
      until: null,
      grantsAccess: true,
    });
  }

  async releasePost(mediaId: string, postId: string): Promise<void> {
    await this.release(mediaId, 'channel_post', postId);
  }

  /**
   * A story shows one of `owner`'s `image` or `video` uploads (encrypted like attachments: the
   * story's ciphertext carries the key) until it expires; answers what the story records.
   */
  async attachToStory(
    owner: string,
    mediaId: string,
    storyId: string,
    expiresAt: Date,
  ): Promise<{ contentType: string; size: number }> {
    const upload = await this.items.find(mediaId);
    const kind =
      upload?.kind === 'video' || upload?.kind === 'image' ? upload.kind : 'image or video';
    const item = await this.hold(owner, mediaId, kind, {
      kind: 'story',
      id: storyId,
      conversationId: '',
      until: expiresAt,
      grantsAccess: true,
    });
    return { contentType: item.contentType, size: item.size };
  }

  /** A story deleted before it expired. */
  async releaseStory(mediaId: string, storyId: string): Promise<void> {
    await this.release(mediaId, 'story', storyId);
  }

  private async hold(
    owner: string,
    mediaId: string,
    kind: string,
    reference: MediaReference,
  ): Promise<MediaItem> {
    const item = await requireOwnUpload(this.items, owner, mediaId, kind);
    await this.items.changeReferences(mediaId, (current) =>
      holds(current, reference.kind, reference.id) ? undefined : [...current.references, reference],
    );
    return item;
  }

  private async release(mediaId: string, kind: MediaReference['kind'], id: string): Promise<void> {
    await this.items
      .changeReferences(
        mediaId,
        (item) =>
          holds(item, kind, id)
            ? item.references.filter(
                (reference) => !(reference.kind === kind && reference.id === id),
              )
            : undefined,
        new Date(),
      )
      .catch(ignoreMissing);
  }
}

const holds = (item: MediaItem, kind: MediaReference['kind'], id: string) =>
  item.references.some((reference) => reference.kind === kind && reference.id === id);
