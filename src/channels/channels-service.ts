/**
 * ChannelsService (channels.proto): broadcast channels, their roles, posts and subscriptions. The
 * handlers are grouped by concern under service/: lifecycle-handlers.ts (create, update,
 * delete), listing-handlers.ts (list, get), membership-handlers.ts (subscriptions and admins) and
 * post-handlers.ts (publish, list posts).
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { ChannelGate } from './channel-access.js';
import type { ChannelRepository } from './channel.js';
import type { ChannelContent, ChannelMedia } from './channel-media.js';
import type { ChannelMembers } from './channel-members.js';
import type { ChannelMembership } from './channel-membership.js';
import type { ChannelPosts } from './channel-posts.js';
import type { ChannelPosting } from './channel-posting.js';
import type { ChannelReadMarkers } from './channel-read-markers.js';
import type { ChannelPostViews } from './channel-post-views.js';
import { lifecycleHandlers } from './service/lifecycle-handlers.js';
import { listingHandlers } from './service/listing-handlers.js';
import { membershipHandlers } from './service/membership-handlers.js';
import { postHandlers } from './service/post-handlers.js';

export interface ChannelsServiceDependencies {
  readonly channels: ChannelRepository;
  readonly members: ChannelMembers;
  readonly membership: ChannelMembership;
  readonly gate: ChannelGate;
  readonly posts: ChannelPosts;
  readonly posting: ChannelPosting;
  readonly readMarkers: ChannelReadMarkers;
  /** Removes a deleted channel's posts, read markers and held media. */
  readonly content: ChannelContent;
  readonly accounts: AccountRepository;
  readonly media: ChannelMedia;
  /** Posts with the caller's own reaction keys. */
  readonly views: ChannelPostViews;
}

export function createChannelsService(deps: ChannelsServiceDependencies) {
  return {
    ...lifecycleHandlers(deps),
    ...listingHandlers(deps),
    ...membershipHandlers(deps),
    ...postHandlers(deps),
  };
}
