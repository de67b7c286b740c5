/**
 * Finding a relation's target message for a caller, by one path for every conversation: the
 * request names the conversation (exactly one of `peer_address`, `group_id`, `channel_id`)
 * and the message by its server id; the target must be in that conversation and readable by
 * the caller (from its `historyFrom` on, not expired, withheld or hidden from it), else 404, so
 * a message of another conversation is as unknown as a made-up id. Channel posts are the
 * channels area's (`ChannelConversations.relationTarget`); direct and group messages are here.
 */
import { invalidArgument, notFound } from '../../platform/errors/api-error.js';
import type { Collection } from '../../platform/store/document-store.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { Conversations, Target, TargetFields } from '../conversations/conversations.js';
import type { StoredMessage } from '../messages/stored-message.js';
import { isVisibleTo } from '../messages/visibility.js';
import type { RelationTarget } from '../conversations/relation-target.js';

/** Message ids longer than this were never issued. */
const MAX_MESSAGE_ID_LENGTH = 64;

/** A direct chat's or group's target: the relation, its conversation and the stored message. */
export interface MessageTarget {
  readonly relation: RelationTarget;
  readonly conversation: Target;
  readonly message: StoredMessage;
}

export type ResolvedTarget =
  | ({ readonly kind: 'message' } & MessageTarget)
  | { readonly kind: 'channel'; readonly channelId: string; readonly relation: RelationTarget };

export const onlyChannel = (fields: TargetFields) =>
  (fields.channelId ?? '') !== '' && fields.peerAddress === '' && fields.groupId === '';

export class RelationTargets {
  constructor(
    private readonly conversations: Conversations,
    private readonly messages: Collection<StoredMessage>,
    private readonly channels: ChannelConversations,
  ) {}

  async resolve(caller: string, fields: TargetFields, messageId: string): Promise<ResolvedTarget> {
    if (messageId === '') throw invalidArgument('message_id is required');
    if (onlyChannel(fields)) {
      const channelId = fields.channelId!;
      const relation = await this.channels.relationTarget(caller, channelId, messageId);
      return { kind: 'channel', channelId, relation };
    }
    const conversation = await this.conversations.resolve(caller, fields);
    const message = await this.readable(caller, conversation, messageId);
    if (!message) throw notFound('No such message in this conversation');
    const member =
      conversation.type === 'group'
        ? await this.conversations.member(conversation.conversationId, caller)
        : null;
    const record =
      conversation.type === 'group'
        ? await this.conversations.find(conversation.conversationId)
        : null;
    return {
      kind: 'message',
      conversation,
      message,
      relation: {
        conversationId: conversation.conversationId,
        type: conversation.type,
        messageId: message._id,
        sequence: message.sequence,
        senderAddress: message.senderAddress,
        kind: message.kind,
        sentAt: message.sentAt,
        viewOnce: message.viewOnce,
        deleted: message.deletedAt !== undefined,
        editCount: message.editCount ?? 0,
        callerRole: member?.role,
        membersCanPin: record?.membersCanPin ?? false,
        franking: message.franking,
      },
    };
  }

  /** The message `messageId` of the conversation if the caller can read it (replies check this too). */
  async readable(
    caller: string,
    conversation: Target,
    messageId: string,
    options: { includeHidden?: boolean } = {},
  ): Promise<StoredMessage | null> {
    if (messageId === '') throw invalidArgument('message_id is required');
    if (messageId.length > MAX_MESSAGE_ID_LENGTH) return null;
    const message = await this.messages.findOne({
      _id: messageId,
      conversationId: conversation.conversationId,
    });
    if (!message) return null;
    const seen = options.includeHidden ? { ...message, hiddenFor: [] } : message;
    if (!isVisibleTo(seen, caller, new Date())) return null;
    return message.sequence >= (conversation.historyFrom ?? 0) ? message : null;
  }
}
