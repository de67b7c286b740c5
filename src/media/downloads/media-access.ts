/**
 * Who may download a media item (media.proto, GetMedia): its uploader; for avatars and sticker
 * images any authenticated user; otherwise the members of a conversation holding a message
 * that references it, while that reference lasts (a viewed view-once message's media for 5
 * minutes). The members are the conversation model's records, which direct chats and groups
 * write, so group messages need nothing more here; a member who left or was removed loses
 * access with the record. Group and channel avatars are public like user avatars; a channel
 * post's media is for whoever may read the channel (public, or a role in it), a story's media
 * for the story's audience while it lasts. A new kind of reference adds its rule to `grantedBy`.
 */
import type { Conversations } from '../../messaging/conversations/conversations.js';
import type { MediaItem, MediaReference } from '../media-item.js';
import { rulesOf } from '../media-kinds.js';
import type { ChannelReaders } from './channel-readers.js';
import type { StoryAudience } from './story-audience-port.js';

export class MediaAccess {
  constructor(
    private readonly conversations: Conversations,
    private readonly channelReaders: ChannelReaders,
    private readonly storyAudience: StoryAudience,
  ) {}

  async mayDownload(caller: string, item: MediaItem, now = new Date()): Promise<boolean> {
    if (item.ownerAddress === caller || rulesOf(item.kind).public) return true;
    for (const reference of item.references) {
      if (reference.until !== null && reference.until <= now) continue;
      if (await this.grantedBy(reference, caller)) return true;
    }
    return false;
  }

  private async grantedBy(reference: MediaReference, caller: string): Promise<boolean> {
    switch (reference.kind) {
      case 'message':
        return (
          reference.grantsAccess &&
          (await this.conversations.member(reference.conversationId, caller)) !== null
        );
      case 'avatar':
      case 'group_avatar':
      case 'channel_avatar':
        return true;
      case 'channel_post':
        return this.channelReaders.mayRead(reference.conversationId, caller);
      case 'story':
        return this.storyAudience.maySee(reference.id, caller);
    }
  }
}
