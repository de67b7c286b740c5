/**
 * The caller's chat list: its conversations, most recently active first, with last message and
 * unread count. Direct chats and groups come from the caller's member records; channels, which
 * write none (a post must not cost a write per subscriber), from the channels area. A user
 * follows a bounded number of channels (CHANNEL_MAX_SUBSCRIPTIONS), so their entries are read
 * whole and merged into the page by the same (activity, id) order the cursor carries.
 */
import type { Message } from '../../gen/service/v1/messages_pb.js';
import type { AccountRepository } from '../../accounts/account-repository.js';
import type { CursorPosition } from '../../platform/api/page-cursor.js';
import { encodeCursor } from '../../platform/api/page-cursor.js';
import type { Collection } from '../../platform/store/document-store.js';
import { newestFirstPage } from '../../platform/store/newest-first-page.js';
import type {
  ChannelChat,
  ChannelConversations,
} from '../conversations/channel-conversations-port.js';
import { memberId } from '../conversations/conversation.js';
import type { ConversationMember } from '../conversations/conversation.js';
import type { Conversations } from '../conversations/conversations.js';
import { messageView } from '../messages/message-view.js';
import type { StoredMessage } from '../messages/stored-message.js';
import { visibleTo } from '../messages/visibility.js';

/** A chat-list entry's place in the order: activity descending, then id ascending. */
interface Placed {
  readonly at: number;
  readonly id: string;
}

const before = (a: Placed, b: Placed) => b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const isAfter = (item: Placed, cursor: CursorPosition | undefined) =>
  !cursor || before({ at: cursor.sortValue, id: cursor.id }, item) < 0;

type Entry = (
  { kind: 'member'; member: ConversationMember } | { kind: 'channel'; channel: ChannelChat }
) &
  Placed;

export class ChatList {
  constructor(
    private readonly conversations: Conversations,
    private readonly messages: Collection<StoredMessage>,
    private readonly accounts: AccountRepository,
    private readonly channels: Pick<ChannelConversations, 'chatsOf' | 'lastPosts'>,
  ) {}

  async page(caller: string, limit: number, after: CursorPosition | undefined) {
    const [members, channels] = await Promise.all([
      newestFirstPage(this.conversations.members, { address: caller }, 'activityAt', limit, after),
      this.channels.chatsOf(caller),
    ]);
    const entries: Entry[] = [
      ...members.items.map((member): Entry => ({
        kind: 'member',
        member,
        at: member.activityAt.getTime(),
        id: member._id,
      })),
      ...channels.map((channel): Entry => ({
        kind: 'channel',
        channel,
        at: channel.activityAt.getTime(),
        id: memberId(`channel:${channel.channelId}`, caller),
      })),
    ]
      .filter((entry) => isAfter(entry, after))
      .sort(before);
    const page = entries.slice(0, limit);
    const last = page[page.length - 1];
    const more = entries.length > limit || members.nextCursor !== '';
    const lastPosts = await this.channels.lastPosts(
      page.flatMap((entry) => (entry.kind === 'channel' ? [entry.channel.channelId] : [])),
    );
    const chats = await Promise.all(
      page.map((entry) =>
        entry.kind === 'member'
          ? this.memberChat(caller, entry.member)
          : channelChat(entry.channel, lastPosts),
      ),
    );
    return {
      chats,
      nextCursor: more && last ? encodeCursor({ sortValue: last.at, id: last.id }) : '',
    };
  }

  private async memberChat(caller: string, member: ConversationMember) {
    const { conversations, messages, accounts } = this;
    const visible = visibleTo(caller, new Date());
    const [conversation, [last], unreadCount, peer] = await Promise.all([
      conversations.find(member.conversationId),
      messages.find(
        {
          conversationId: member.conversationId,
          sequence: { $gte: member.historyFrom ?? 0 },
          ...visible,
        },
        { sort: { sequence: -1 }, limit: 1 },
      ),
      messages.countDocuments({
        conversationId: member.conversationId,
        sequence: { $gt: member.lastReadSequence },
        senderAddress: { $ne: caller },
        ...visible,
      }),
      member.type === 'direct' ? accounts.find(member.peerAddress) : Promise.resolve(null),
    ]);
    return {
      conversationId: member.conversationId,
      type: member.type,
      peerAddress: member.peerAddress,
      groupId: member.groupId,
      channelId: member.channelId,
      title: peer
        ? peer.displayName || peer.username || peer._id
        : conversation?.title || member.groupId || member.channelId,
      avatarMediaId: '',
      ...(last ? { lastMessage: messageView(last) } : {}),
      unreadCount,
      // Mentions of the caller (or `@everyone`) after its read marker, kept on its member record.
      unreadMentionCount: (member.mentionSequences ?? []).filter(
        (sequence) => sequence > member.lastReadSequence,
      ).length,
      disappearingTimerSeconds: conversation?.disappearingTimerSeconds ?? 0,
      lastReadMessageId: member.lastReadMessageId,
      updatedAt: member.activityAt.toISOString(),
    };
  }
}

/** Channels keep no timers: `disappearing_timer_seconds` is always 0 (messages.proto). */
function channelChat(channel: ChannelChat, lastPosts: ReadonlyMap<string, Message>) {
  const last = lastPosts.get(channel.channelId);
  return {
    conversationId: `channel:${channel.channelId}`,
    type: 'channel',
    peerAddress: '',
    groupId: '',
    channelId: channel.channelId,
    title: channel.title,
    avatarMediaId: channel.avatarMediaId,
    ...(last ? { lastMessage: last } : {}),
    unreadCount: channel.unreadCount,
    unreadMentionCount: channel.unreadMentionCount,
    disappearingTimerSeconds: 0,
    lastReadMessageId: channel.lastReadMessageId,
    updatedAt: channel.activityAt.toISOString(),
  };
}
