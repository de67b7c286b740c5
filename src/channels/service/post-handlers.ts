/** A channel's posts: PublishChannelPost (channel-posting.ts decides) and ListChannelPosts. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  ListChannelPostsRequest,
  PublishChannelPostRequest,
} from '../../gen/service/v1/channels_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { decodeCursor, pageSize } from '../../platform/api/page-cursor.js';
import type { ChannelGate } from '../channel-access.js';
import type { ChannelPosts } from '../channel-posts.js';
import type { ChannelPosting } from '../channel-posting.js';
import type { ChannelPostViews } from '../channel-post-views.js';

export interface PostHandlersDependencies {
  readonly gate: ChannelGate;
  readonly posts: ChannelPosts;
  readonly posting: ChannelPosting;
  /** Posts with the caller's own reaction keys. */
  readonly views: ChannelPostViews;
}

export function postHandlers(deps: PostHandlersDependencies) {
  return {
    async publishChannelPost(request: PublishChannelPostRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { post, duplicate } = await deps.posting.publish(caller, request);
      return {
        success: true,
        message: duplicate ? 'Already published' : 'Published',
        chatMessage: post,
        duplicate,
      };
    },

    async listChannelPosts(request: ListChannelPostsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const { channel } = await deps.gate.visible(request.channelId, caller);
      const page = await deps.posts.page(channel._id, limit, after);
      return {
        success: true,
        message: `${page.items.length} posts`,
        posts: await deps.views.pageFor(caller, page.items),
        nextCursor: page.nextCursor,
      };
    },
  };
}
