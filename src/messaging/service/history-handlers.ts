/**
 * ListMessages: a direct chat's or group's history (marking what it returns delivered, with the
 * messages' reactions and pins and the caller's stars), or a channel's posts when only
 * `channel_id` is set (with their reaction counts, from the channels area, and pins).
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { ListMessagesRequest } from '../../gen/service/v1/messages_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import type { ChannelConversations } from '../conversations/channel-conversations-port.js';
import type { Conversations } from '../conversations/conversations.js';
import type { History } from '../messages/history.js';
import type { Receipts } from '../messages/receipts.js';
import type { RelationViews } from '../relations/relation-views.js';
import { onlyChannel } from './channel-requests.js';

export interface HistoryHandlersDependencies {
  readonly conversations: Conversations;
  readonly channels: ChannelConversations;
  readonly history: History;
  readonly receipts: Receipts;
  /** Reactions, pins and the caller's stars of the page's messages. */
  readonly views: RelationViews;
}

export function historyHandlers(deps: HistoryHandlersDependencies) {
  const { conversations, channels, views } = deps;

  return {
    async listMessages(request: ListMessagesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (onlyChannel(request)) {
        const page = await channels.history(caller, request.channelId, request);
        await views.markPinned(page.conversationId, page.messages);
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
      const exists =
        page.messages.length > 0 || (await conversations.find(target.conversationId)) !== null;
      return {
        success: true,
        message: `${page.messages.length} messages`,
        conversationId: exists ? target.conversationId : '',
        messages: await views.views(page.messages, caller),
        beforeCursor: page.beforeCursor,
        afterCursor: page.afterCursor,
        hasMoreAfter: page.hasMoreAfter,
      };
    },
  };
}
