/** The caller's chat list: its conversations, most recently active first, with last message and unread count. */
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import { encodeCursor } from '../../platform/api/page-cursor.js';
import type { StoreFilter } from '../../platform/store/document-store.js';
import { messageView } from '../messages/message-view.js';
import { visibleTo } from '../messages/visibility.js';
import type { Messaging } from '../messaging-area.js';
import type { ConversationMember } from '../conversations/conversation.js';

export async function chatList(messaging: Messaging, caller: string, limit: number, after: CursorPosition | undefined) {
  const { conversations, messages, accounts } = messaging;
  const filter: StoreFilter<ConversationMember> = after
    ? { address: caller, $or: [{ activityAt: { $lt: new Date(after.sortValue) } }, { activityAt: new Date(after.sortValue), _id: { $gt: after.id } }] }
    : { address: caller };
  const found = await conversations.members.find(filter, { sort: { activityAt: -1, _id: 1 }, limit: limit + 1 });
  const page = found.slice(0, limit);
  const now = new Date();
  const visible = visibleTo(caller, now);
  const chats = await Promise.all(
    page.map(async (member) => {
      const [conversation, [last], unreadCount, peer] = await Promise.all([
        conversations.find(member.conversationId),
        messages.find({ conversationId: member.conversationId, ...visible }, { sort: { sequence: -1 }, limit: 1 }),
        messages.countDocuments({ conversationId: member.conversationId, sequence: { $gt: member.lastReadSequence }, senderAddress: { $ne: caller }, ...visible }),
        member.type === 'direct' ? accounts.find(member.peerAddress) : Promise.resolve(null),
      ]);
      return {
        conversationId: member.conversationId,
        type: member.type,
        peerAddress: member.peerAddress,
        groupId: member.groupId,
        channelId: member.channelId,
        title: peer ? peer.displayName || peer.username || peer._id : member.groupId || member.channelId,
        avatarMediaId: '',
        ...(last ? { lastMessage: messageView(last) } : {}),
        unreadCount,
        disappearingTimerSeconds: conversation?.disappearingTimerSeconds ?? 0,
        lastReadMessageId: member.lastReadMessageId,
        updatedAt: member.activityAt.toISOString(),
      };
    }),
  );
  const lastMember = page[page.length - 1];
  const nextCursor = found.length > limit && lastMember ? encodeCursor({ sortValue: lastMember.activityAt.getTime(), id: lastMember._id }) : '';
  return { chats, nextCursor };
}
