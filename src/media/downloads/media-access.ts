/**
 * Who may download a media item (media.proto, GetMedia): its uploader; for avatars and sticker
 * images any authenticated user; otherwise the members of a conversation holding a message
 * that references it, while that reference lasts (a viewed view-once message's media for 5
 * minutes). The members are the conversation model's records, which direct chats, groups and
 * channels all write, so group and channel messages need nothing more here. Stories and
 * channel posts that come with their own reference kind add their rule to `grantedBy`.
 */
import type { Conversations } from '../../messaging/conversations/conversations.js';
import type { MediaItem, MediaReference } from '../media-item.js';
import { rulesOf } from '../media-kinds.js';

export class MediaAccess {
  constructor(private readonly conversations: Conversations) {}

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
        return reference.grantsAccess && (await this.conversations.member(reference.conversationId, caller)) !== null;
      case 'avatar':
        return true;
    }
  }
}
