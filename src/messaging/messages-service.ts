/**
 * MessagesService (messages.proto): sending, history, chat list, receipts, stars, timers,
 * view-once. Each RPC checks its request's shape and hands it to a domain object (messages/,
 * chats/, conversations/); the rules and the storage live there. The handlers are grouped by
 * concern under service/: send-handlers.ts (the four send RPCs), history-handlers.ts
 * (ListMessages), receipt-handlers.ts (read markers, stars, view-once) and chat-handlers.ts (chat
 * list, peer info, typing, the disappearing timer) and relation-handlers.ts (edits, deletions,
 * reactions and pins).
 */
import type { ChatList } from './chats/chat-list.js';
import type { DisappearingTimer } from './chats/disappearing-timer.js';
import type { PeerInfo } from './chats/peer-info.js';
import type { Typing } from './chats/typing.js';
import type { ChannelConversations } from './conversations/channel-conversations-port.js';
import type { Conversations } from './conversations/conversations.js';
import type { History } from './messages/history.js';
import type { MessageSender } from './messages/message-sender.js';
import type { Receipts } from './messages/receipts.js';
import type { Stars } from './messages/stars.js';
import type { ViewOnce } from './messages/view-once.js';
import { chatHandlers } from './service/chat-handlers.js';
import { historyHandlers } from './service/history-handlers.js';
import { receiptHandlers } from './service/receipt-handlers.js';
import { relationHandlers } from './service/relation-handlers.js';
import type { MessageDeletions } from './relations/message-deletions.js';
import type { MessageEdits } from './relations/message-edits.js';
import type { MessagePins } from './relations/message-pins.js';
import type { MessageReactions } from './relations/message-reactions.js';
import type { RelationViews } from './relations/relation-views.js';
import { sendHandlers } from './service/send-handlers.js';
import type { PollSends } from './messages/poll-sends-port.js';

export interface MessagesServiceDependencies {
  readonly conversations: Conversations;
  /** Channels, which the channels area keeps: messaging routes `channel_id` requests there. */
  readonly channels: ChannelConversations;
  readonly sender: MessageSender;
  /** The polls area's side of a send with `poll_id`. */
  readonly polls: PollSends;
  readonly history: History;
  readonly receipts: Receipts;
  readonly stars: Stars;
  readonly viewOnce: ViewOnce;
  readonly chatList: ChatList;
  readonly peerInfo: PeerInfo;
  readonly typing: Typing;
  readonly disappearingTimer: DisappearingTimer;
  readonly edits: MessageEdits;
  readonly deletions: MessageDeletions;
  readonly reactions: MessageReactions;
  readonly pins: MessagePins;
  readonly views: RelationViews;
}

export function createMessagesService(deps: MessagesServiceDependencies) {
  return {
    ...sendHandlers(deps),
    ...historyHandlers(deps),
    ...chatHandlers(deps),
    ...receiptHandlers(deps),
    ...relationHandlers(deps),
  };
}
