/**
 * Media attached to messages: messaging's `MediaAttachments`, implemented over the media
 * items. Attaching checks that the upload is the sender's and of the message's kind and
 * records the message as a reference, before the message is written; the reference ends
 * with the message (its expiry, or 5 minutes after a view-once message is opened).
 */
import type {
  AttachedMedia,
  MediaAttachments,
  MessageReference,
} from '../messaging/messages/media-attachments.js';
import { ignoreMissing } from './media-items.js';
import type { MediaItems } from './media-items.js';
import { requireOwnUpload } from './own-upload.js';

export class MessageAttachments implements MediaAttachments {
  constructor(private readonly items: MediaItems) {}

  async attach(
    sender: string,
    mediaId: string,
    kind: string,
    reference: MessageReference,
  ): Promise<AttachedMedia> {
    await requireOwnUpload(this.items, sender, mediaId, kind);
    const item = await this.items.changeReferences(mediaId, (current) => {
      // A retried send attaches again: the reference is already there.
      if (
        current.references.some(
          (existing) => existing.kind === 'message' && existing.id === reference.messageId,
        )
      )
        return undefined;
      return [
        ...current.references,
        {
          kind: 'message',
          id: reference.messageId,
          conversationId: reference.conversationId,
          until: reference.until,
          grantsAccess: reference.grantsAccess,
        },
      ];
    });
    return { size: item.size, sha256: item.sha256, contentType: item.contentType };
  }

  async endReference(mediaId: string, messageId: string, at: Date): Promise<void> {
    await this.items
      .changeReferences(
        mediaId,
        (item) =>
          item.references.map((reference) =>
            reference.kind === 'message' &&
            reference.id === messageId &&
            (reference.until === null || reference.until > at)
              ? { ...reference, until: at }
              : reference,
          ),
        at,
      )
      .catch(ignoreMissing);
  }
}
