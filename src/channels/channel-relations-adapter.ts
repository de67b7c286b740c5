/**
 * The relation half of messaging's `ChannelConversations` port: a post as a relation's target
 * (readable by the caller, with its role), and the writes messaging's relation rules then ask
 * for (edits and deletions: channel-post-changes.ts; reaction keys: channel-reactions.ts). The
 * rules themselves (who may edit, delete, react, pin) are messaging's, shared with direct chats
 * and groups; what is the channel's is where posts, counts and followers live.
 */
import type { ChannelConversations } from '../messaging/conversations/channel-conversations-port.js';
import { notFound } from '../platform/errors/api-error.js';
import type { ChannelConversationsParts } from './channel-conversations-parts.js';
import { postView } from './channel-view.js';

type RelationMethods = Pick<
  ChannelConversations,
  'relationTarget' | 'editPost' | 'deletePost' | 'react' | 'postsFor' | 'announceChange'
>;

export function channelRelations(parts: ChannelConversationsParts): RelationMethods {
  const { gate, posts, reactions, changes, views } = parts;

  /** The post of a channel the caller can read: 404 otherwise (as for an unknown id). */
  const readablePost = async (caller: string, channelId: string, postId: string) => {
    const visible = await gate.visible(channelId, caller);
    const post = await posts.find(visible.channel._id, postId);
    if (!post) throw notFound('No such message in this conversation');
    return { ...visible, post };
  };

  return {
    async relationTarget(caller, channelId, postId) {
      const { channel, role, post } = await readablePost(caller, channelId, postId);
      return {
        conversationId: `channel:${channel._id}`,
        type: 'channel',
        messageId: post._id,
        sequence: post.sequence,
        senderAddress: post.senderAddress,
        kind: post.kind,
        sentAt: post.sentAt,
        viewOnce: false,
        deleted: post.deletedAt !== undefined,
        editCount: post.editCount ?? 0,
        callerRole: role === 'subscriber' ? 'member' : role,
        membersCanPin: false,
        franking: post.franking,
      };
    },

    async editPost(channelId, postId, ciphertext, editCount, at) {
      const edited = await changes.edit(channelId, postId, ciphertext, editCount, at);
      return edited && postView(edited);
    },

    async deletePost(channelId, postId, deletedBy, deleterAddress, at) {
      const post = await posts.find(channelId, postId);
      if (!post) throw notFound('No such message in this conversation');
      return postView(await changes.delete(post, deletedBy, deleterAddress, at));
    },

    async react(caller, channelId, postId, key, add) {
      const { post } = await readablePost(caller, channelId, postId);
      // The followers hear of the counts from the change sweeper, once per post and sweep.
      const mine = await reactions.change(post, caller, key, add);
      const current = (await posts.find(post.channelId, post._id)) ?? post;
      return postView(current, mine);
    },

    async postsFor(caller, channelId, postIds) {
      const { channel } = await gate.visible(channelId, caller);
      const found = new Map(
        (await posts.findMany(channel._id, postIds)).map((post) => [post._id, post]),
      );
      const ordered = postIds.flatMap((id) => found.get(id) ?? []);
      return views.pageFor(caller, ordered);
    },

    async announceChange(channelId, post, change) {
      const stored = await posts.find(channelId, post.id);
      if (!stored) return;
      // Pinned as messaging decided (it keeps the pins).
      await changes.logged(stored, change, post.pinned);
    },
  };
}
