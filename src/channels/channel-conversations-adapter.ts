/**
 * Channels in the messaging routes: the channels area's implementation of messaging's
 * `ChannelConversations` port. Sends go through the same publish path as PublishChannelPost;
 * history pages the posts by the channel's own sequence with ListMessages' cursors; read
 * markers and unread counts come from `channel_read_markers` and the channel's last post
 * number, so a post writes nothing per subscriber. Channels keep no receipts (messages.proto).
 */
import type {
  ChannelConversations,
  ChannelChat,
} from '../messaging/conversations/channel-conversations-port.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import { channelRelations } from './channel-relations-adapter.js';
import type { ChannelConversationsParts } from './channel-conversations-parts.js';
import { postView } from './channel-view.js';

/** Post ids longer than this were never issued. */
const MAX_POST_ID_LENGTH = 64;

export const channelConversationId = (channelId: string) => `channel:${channelId}`;

export function channelConversations(parts: ChannelConversationsParts): ChannelConversations {
  const { channels, members, gate, posts, posting, markers } = parts;
  return {
    ...channelRelations(parts),
    async publish(caller, channelId, post) {
      const { post: message, duplicate } = await posting.publish(caller, { channelId, ...post });
      return { message, duplicate };
    },

    async history(caller, channelId, request) {
      const { channel } = await gate.visible(channelId, caller);
      const conversationId = channelConversationId(channel._id);
      const { items, ...cursors } = await posts.history(channel._id, conversationId, request);
      return { conversationId, messages: await parts.views.pageFor(caller, items), ...cursors };
    },

    async markRead(caller, channelId, upToMessageId) {
      if (upToMessageId === '') throw invalidArgument('up_to_message_id is required');
      const { channel } = await gate.visible(channelId, caller);
      const upTo =
        upToMessageId.length <= MAX_POST_ID_LENGTH
          ? await posts.posts.findOne({ _id: upToMessageId, channelId: channel._id })
          : null;
      if (!upTo) throw notFound('No such message in this conversation');
      const moved = await markers.advance(channel._id, caller, upTo.sequence, upTo._id);
      const marker = await markers.find(channel._id, caller);
      const latest = (await channels.find(channel._id))?.lastSequence ?? channel.lastSequence;
      return {
        conversationId: channelConversationId(channel._id),
        moved,
        lastReadMessageId: marker?.lastReadMessageId ?? '',
        unreadCount: Math.max(0, latest - (marker?.lastReadSequence ?? 0)),
      };
    },

    async chatsOf(caller) {
      const roles = await members.ofAddress(caller);
      const since = new Map(roles.map((member) => [member.channelId, member.since]));
      const ids = [...since.keys()];
      const [found, read] = await Promise.all([channels.findMany(ids), markers.among(caller, ids)]);
      return Promise.all(
        found.map(async (channel): Promise<ChannelChat> => {
          const joined = since.get(channel._id)!;
          const marker = read.get(channel._id);
          const readUpTo = marker?.lastReadSequence ?? 0;
          return {
            channelId: channel._id,
            title: channel.name,
            avatarMediaId: channel.avatarMediaId,
            activityAt:
              channel.lastPostAt && channel.lastPostAt > joined ? channel.lastPostAt : joined,
            unreadCount: Math.max(0, channel.lastSequence - readUpTo),
            // Counted only where something is unread: most chats cost no query.
            unreadMentionCount:
              channel.lastSequence > readUpTo
                ? await posts.countMentions(channel._id, caller, readUpTo)
                : 0,
            lastReadMessageId: marker?.lastReadMessageId ?? '',
          };
        }),
      );
    },

    async lastPosts(channelIds) {
      const newest = await Promise.all(channelIds.map((channelId) => posts.newest(channelId)));
      return new Map(
        newest.filter((post) => post !== null).map((post) => [post.channelId, postView(post)]),
      );
    },
  };
}
