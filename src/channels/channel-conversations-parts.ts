/** The channels area's parts that messaging's `ChannelConversations` port is built over. */
import type { ChannelGate } from './channel-access.js';
import type { ChannelRepository } from './channel.js';
import type { ChannelMembers } from './channel-members.js';
import type { ChannelPostChanges } from './channel-post-changes.js';
import type { ChannelPostViews } from './channel-post-views.js';
import type { ChannelPosting } from './channel-posting.js';
import type { ChannelPosts } from './channel-posts.js';
import type { ChannelReactions } from './channel-reactions.js';
import type { ChannelReadMarkers } from './channel-read-markers.js';

export interface ChannelConversationsParts {
  readonly channels: ChannelRepository;
  readonly members: ChannelMembers;
  readonly gate: ChannelGate;
  readonly posts: ChannelPosts;
  readonly posting: ChannelPosting;
  readonly markers: ChannelReadMarkers;
  readonly reactions: ChannelReactions;
  readonly changes: ChannelPostChanges;
  readonly views: ChannelPostViews;
}
