/**
 * DeleteMessage (for everyone) and DeleteMessageForMe, in direct chats, groups and channels.
 *
 * For everyone: the rules of relation-rules.ts `deleterOf` (the sender within its window; a
 * group's or channel's owner and admins for any message). The media reference ends first, then
 * one conditional write turns the message into its tombstone (ciphertext unset, media fields
 * emptied, `deletedAt`, `deletedBy`), so a crash in between leaves the message showing a media
 * id whose blob may be swept (a download answers 410) until the deletion is repeated, never a
 * tombstone whose blob is kept. Its reactions, pin, stars and unread mentions then go (reads
 * already ignore them on a tombstone, so a crash there shows nothing), the readers are told
 * (`message.deleted`) and the replay logs' copies are rewritten to the tombstone. A channel
 * post is deleted by the channels area (`ChannelConversations.deletePost`) after the same check.
 *
 * For me: the caller is added to the message's `hiddenFor`, which every read path filters on
 * (messages/visibility.ts); the caller's own star goes and its devices are told
 * (`message.hidden`). Nobody else is.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import { notFound } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { Conversations, TargetFields } from '../conversations/conversations.js';
import type { MediaAttachments } from '../messages/media-attachments.js';
import { messageJson } from '../messages/message-view.js';
import type { Stars } from '../messages/stars.js';
import type { StoredMessage } from '../messages/stored-message.js';
import type { EncryptedReactions } from '../messages/encrypted-reactions.js';
import type { Pins } from './pins.js';
import type { RelationEvents } from './relation-events.js';
import { deleterOf } from './relation-rules.js';
import { onlyChannel } from './relation-targets.js';
import type { RelationTargets } from './relation-targets.js';
import type { RelationViews } from './relation-views.js';

export interface MessageDeletionsDependencies {
  readonly targets: RelationTargets;
  readonly messages: Collection<StoredMessage>;
  readonly conversations: Conversations;
  readonly channels: ChannelConversations;
  readonly media: MediaAttachments;
  readonly reactions: EncryptedReactions;
  readonly pins: Pins;
  readonly stars: Stars;
  readonly events: RelationEvents;
  readonly views: RelationViews;
  /** MESSAGE_DELETE_WINDOW */
  readonly windowMs: number;
}

export class MessageDeletions {
  constructor(private readonly deps: MessageDeletionsDependencies) {}

  async deleteForEveryone(
    caller: string,
    fields: TargetFields,
    messageId: string,
  ): Promise<Message> {
    const { deps } = this;
    const target = await deps.targets.resolve(caller, fields, messageId);
    const now = new Date();
    const deletedBy = deleterOf(target.relation, caller, now, deps.windowMs);
    if (target.kind === 'channel') {
      const tombstone = await deps.channels.deletePost(
        target.channelId,
        messageId,
        deletedBy,
        caller,
        now,
      );
      await deps.pins.unpin(target.relation.conversationId, messageId);
      return tombstone;
    }
    const { message } = target;
    if (message.deletedAt) return deps.views.view(message, caller);
    if (message.mediaId !== '') await deps.media.endReference(message.mediaId, message._id, now);
    const tombstone =
      (await deps.messages.findOneAndUpdate(
        { _id: message._id, deletedAt: { $exists: false } },
        {
          $set: {
            deletedAt: now,
            deletedBy,
            deletedByAddress: caller,
            mediaId: '',
            mediaSize: 0,
            mediaSha256: '',
            mediaContentType: '',
          },
          $unset: { ciphertext: '' },
        },
        { returnDocument: 'after' },
      )) ?? (await deps.messages.findOne({ _id: message._id }));
    if (!tombstone) throw notFound('No such message in this conversation');
    await Promise.all([
      deps.reactions.removeOf(message._id),
      deps.pins.unpin(message.conversationId, message._id),
      deps.stars.removeOf(message._id),
      deps.conversations.forgetMention(message.conversationId, message.sequence),
    ]);
    const readers = await deps.events.readersOf(tombstone);
    const view = await deps.views.view(tombstone);
    await deps.events.tell(
      'message.deleted',
      tombstone,
      {
        conversation_id: tombstone.conversationId,
        message_id: tombstone._id,
        deleted_at: now.toISOString(),
        deleted_by: deletedBy,
        message: messageJson(view),
      },
      { recipients: readers, dedupeKey: `message.deleted:${tombstone._id}` },
    );
    await deps.events.scrubLogged(tombstone, readers);
    return deps.views.view(tombstone, caller);
  }

  async deleteForMe(caller: string, fields: TargetFields, messageId: string): Promise<void> {
    const { deps } = this;
    if (onlyChannel(fields)) throw notFound('Channel posts are hidden on the device');
    const conversation = await deps.conversations.resolve(caller, fields);
    const message = await deps.targets.readable(caller, conversation, messageId, {
      includeHidden: true,
    });
    if (!message) throw notFound('No such message in this conversation');
    await deps.messages.updateOne({ _id: message._id }, { $addToSet: { hiddenFor: caller } });
    await deps.stars.removeOwn(caller, message._id);
    await deps.events.tell(
      'message.hidden',
      message,
      { conversation_id: message.conversationId, message_id: message._id },
      { recipients: [caller], dedupeKey: `message.hidden:${message._id}` },
    );
  }
}
