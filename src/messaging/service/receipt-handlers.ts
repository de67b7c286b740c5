/**
 * What a reader does to messages: MarkAsRead (a direct chat's or group's read marker with its
 * receipts, or a channel's when only `channel_id` is set), stars, and opening a view-once message.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  ListStarredMessagesRequest,
  MarkAsReadRequest,
  StarMessageRequest,
  UnstarMessageRequest,
  ViewOnceMessageRequest,
} from '../../gen/service/v1/messages_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { decodeCursor, pageSize } from '../../platform/api/page-cursor.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { Conversations } from '../conversations/conversations.js';
import { messageView } from '../messages/message-view.js';
import type { Receipts } from '../messages/receipts.js';
import type { Stars } from '../messages/stars.js';
import type { ViewOnce } from '../messages/view-once.js';
import { onlyChannel } from './channel-requests.js';

export interface ReceiptHandlersDependencies {
  readonly conversations: Conversations;
  readonly channels: ChannelConversations;
  readonly receipts: Receipts;
  readonly stars: Stars;
  readonly viewOnce: ViewOnce;
}

export function receiptHandlers(deps: ReceiptHandlersDependencies) {
  const { conversations, stars, channels } = deps;

  /** A direct chat's or group's read marker, with the receipts it sends. */
  const markRead = async (caller: string, request: MarkAsReadRequest) => {
    const target = await conversations.resolve(caller, request);
    return {
      conversationId: target.conversationId,
      ...(await deps.receipts.markRead(caller, target, request.upToMessageId)),
    };
  };

  return {
    async markAsRead(request: MarkAsReadRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const marker = onlyChannel(request)
        ? await channels.markRead(caller, request.channelId, request.upToMessageId)
        : await markRead(caller, request);
      return {
        success: true,
        message: marker.moved ? 'Read marker moved' : 'Read marker unchanged',
        conversationId: marker.conversationId,
        lastReadMessageId: marker.lastReadMessageId,
        unreadCount: marker.unreadCount,
      };
    },

    async starMessage(request: StarMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await stars.star(caller, request.messageId);
      return {
        success: true,
        message: 'Message starred',
        messageId: request.messageId,
        starred: true,
      };
    },

    async unstarMessage(request: UnstarMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await stars.unstar(caller, request.messageId);
      return {
        success: true,
        message: 'Message unstarred',
        messageId: request.messageId,
        starred: false,
      };
    },

    async listStarredMessages(request: ListStarredMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const filters = [request.peerAddress, request.groupId, request.channelId].filter(
        (value) => value !== '',
      );
      if (filters.length > 1)
        throw invalidArgument('Give at most one of peer_address, group_id and channel_id');
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const conversationId =
        filters.length === 1
          ? (await conversations.resolve(caller, request)).conversationId
          : undefined;
      const page = await stars.listStarred(caller, conversationId, limit, after);
      return {
        success: true,
        message: `${page.messages.length} starred messages`,
        messages: page.messages.map((message) => messageView(message, { starred: true })),
        nextCursor: page.nextCursor,
      };
    },

    async viewOnceMessage(request: ViewOnceMessageRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { message, viewedAt, mediaAvailableUntil } = await deps.viewOnce.open(
        caller,
        request.peer,
        request.id,
      );
      return {
        success: true,
        message: 'View-once message opened; it cannot be opened again',
        chatMessage: messageView({ ...message, viewedAt }, { openViewOnce: true }),
        mediaAvailableUntil: mediaAvailableUntil?.toISOString() ?? '',
      };
    },
  };
}
