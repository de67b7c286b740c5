/**
 * ListMessages: a direct chat's or group's history (marking what it returns delivered, with the
 * caller's stars), or a channel's posts when only `channel_id` is set.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { ListMessagesRequest } from '../../gen/service/v1/messages_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { Conversations } from '../conversations/conversations.js';
import type { History } from '../messages/history.js';
import { messageView } from '../messages/message-view.js';
import type { Receipts } from '../messages/receipts.js';
import type { Stars } from '../messages/stars.js';
import { onlyChannel } from './channel-requests.js';

export interface HistoryHandlersDependencies {
  readonly conversations: Conversations;
  readonly channels: ChannelConversations;
  readonly history: History;
  readonly receipts: Receipts;
  readonly stars: Stars;
}

export function historyHandlers(deps: HistoryHandlersDependencies) {
  const { conversations, channels, stars } = deps;

  return {
    async listMessages(request: ListMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (onlyChannel(request)) {
        const page = await channels.history(caller, request.channelId, request);
        return { success: true, message: `${page.messages.length} messages`, ...page };
      }
      const target = await conversations.resolve(caller, request);
      const page = await deps.history.read(
        target.conversationId,
        caller,
        request,
        target.historyFrom,
      );
      await deps.receipts.markDelivered(caller, target, page.messages);
      const starred = await stars.starredAmong(
        caller,
        page.messages.map((message) => message._id),
      );
      const exists =
        page.messages.length > 0 || (await conversations.find(target.conversationId)) !== null;
      return {
        success: true,
        message: `${page.messages.length} messages`,
        conversationId: exists ? target.conversationId : '',
        messages: page.messages.map((message) =>
          messageView(message, { starred: starred.has(message._id) }),
        ),
        beforeCursor: page.beforeCursor,
        afterCursor: page.afterCursor,
        hasMoreAfter: page.hasMoreAfter,
      };
    },
  };
}
