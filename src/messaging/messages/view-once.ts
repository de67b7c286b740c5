/**
 * Opening a view-once message: its recipient gets the content exactly once. Opening removes the
 * ciphertext atomically (of concurrent openers only one gets it) and leaves a tombstone that
 * answers 410 until the message expires; the sender and the viewer's other connections hear
 * `message.viewed`. Its media's reference ends 5 minutes later (the media area then deletes it).
 */
import { gone, notFound } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import { isWalletAddress } from '../../accounts/wallet-address.js';
import type { MessagingEvents } from '../../events/messaging-events.js';
import type { MediaAttachments } from './media-attachments.js';
import type { StoredMessage } from './stored-message.js';

export class ViewOnce {
  constructor(
    private readonly messages: Collection<StoredMessage>,
    private readonly events: MessagingEvents,
    private readonly media: MediaAttachments,
    /** How long a viewed message's media stays downloadable (MEDIA_VIEWED_GRACE, messages.proto: 5 minutes). */
    private readonly viewedMediaGraceMs: number,
  ) {}

  /** The message as it was before opening, when it was opened and until when its media may be downloaded. */
  async open(
    viewer: string,
    peerAddress: string,
    messageId: string,
  ): Promise<{ message: StoredMessage; viewedAt: Date; mediaAvailableUntil: Date | null }> {
    // A malformed peer or id names no message: the same 404 as an unknown one.
    const peer = isWalletAddress(peerAddress) ? peerAddress.toLowerCase() : undefined;
    const found =
      peer && messageId.length <= 64
        ? await this.messages.findOne({
            _id: messageId,
            senderAddress: peer,
            recipientAddress: viewer,
            viewOnce: true,
            withheld: false,
          })
        : null;
    if (!found || !peer || peer === viewer) throw notFound('No such view-once message');
    const now = new Date();
    if (found.viewedAt !== null || (found.expiresAt && found.expiresAt <= now))
      throw gone('This view-once message was already viewed or has expired');
    // Only one of concurrent openers gets the content: the update matches while unviewed.
    const opened = await this.messages.findOneAndUpdate(
      { _id: found._id, viewedAt: null },
      { $set: { viewedAt: now }, $unset: { ciphertext: '' } },
      { returnDocument: 'before' },
    );
    if (!opened) throw gone('This view-once message was already viewed');
    // The media stays downloadable for a grace period, then the sweeper deletes it.
    const mediaAvailableUntil =
      opened.mediaId === '' ? null : new Date(now.getTime() + this.viewedMediaGraceMs);
    if (mediaAvailableUntil)
      await this.media.endReference(opened.mediaId, opened._id, mediaAvailableUntil);
    await this.events.durable('message.viewed', [peer, viewer], {
      conversation_id: opened.conversationId,
      message_id: opened._id,
      viewer_address: viewer,
      viewed_at: now.toISOString(),
    });
    return { message: opened, viewedAt: now, mediaAvailableUntil };
  }
}
