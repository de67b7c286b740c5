/** The caller's chat list: its conversations, most recently active first, with last message and unread count. */
import type { AccountRepository } from '../../identity/accounts/account-repository.js';
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import type { Collection } from '../../platform/store/document-store.js';
import { newestFirstPage } from '../../platform/store/newest-first-page.js';
import type { Conversations } from '../conversations/conversations.js';
import { messageView } from '../messages/message-view.js';
import type { StoredMessage } from '../messages/stored-message.js';
import { visibleTo } from '../messages/visibility.js';

export class ChatList {
  constructor(
    private readonly conversations: Conversations,
    private readonly messages: Collection<StoredMessage>,
    private readonly accounts: AccountRepository,
  ) {}

  async page(caller: string, limit: number, after: CursorPosition | undefined) {
    const { conversations, messages, accounts } = this;
    const page = await newestFirstPage(conversations.members, { address: caller }, 'activityAt', limit, after);
    const now = new Date();
    const visible = visibleTo(caller, now);
    const chats = await Promise.all(
      page.items.map(async (member) => {
        const [conversation, [last], unreadCount, peer] = await Promise.all([
          conversations.find(member.conversationId),
          messages.find({ conversationId: member.conversationId, sequence: { $gte: member.historyFrom ?? 0 }, ...visible }, { sort: { sequence: -1 }, limit: 1 }),
          messages.countDocuments({ conversationId: member.conversationId, sequence: { $gt: member.lastReadSequence }, senderAddress: { $ne: caller }, ...visible }),
          member.type === 'direct' ? accounts.find(member.peerAddress) : Promise.resolve(null),
        ]);
        return {
          conversationId: member.conversationId,
          type: member.type,
          peerAddress: member.peerAddress,
          groupId: member.groupId,
          channelId: member.channelId,
          title: peer ? peer.displayName || peer.username || peer._id : conversation?.title || member.groupId || member.channelId,
          avatarMediaId: '',
          ...(last ? { lastMessage: messageView(last) } : {}),
          unreadCount,
          disappearingTimerSeconds: conversation?.disappearingTimerSeconds ?? 0,
          lastReadMessageId: member.lastReadMessageId,
          updatedAt: member.activityAt.toISOString(),
        };
      }),
    );
    return { chats, nextCursor: page.nextCursor };
  }
}
