/**
 * The channels area of an api process: channels, their roles and posts in the store; posts go
 * to subscribers through the channel topics (realtime's `ChannelPostStream`) and the follow
 * mirror tells the ws pods who follows what (`ChannelFollows`, rebuilt by the mirror keeper
 * from `mirror`). Avatars and posts' media are held by the media area (`media`, channel-media.ts).
 * `access` is for the polls area and media (may an address read or publish in a channel),
 * `pollPosts` for the polls area (a poll's post); `conversations` carries channels in
 * messaging's routes (send, history, read markers, chats); `changeSweeper` logs the posts'
 * reaction counts and changes left unlogged (channel-change-sweeper.ts).
 */
import type { AccountRepository } from '../accounts/account-repository.js';
import type { ChannelSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelPostStream } from '../events/channel-post-stream.js';
import type { SendAdmission } from '../messaging/messages/send-admission.js';
import type { WakeUps } from '../push/delivery/wake-ups.js';
import { ChannelPostChanges } from './channel-post-changes.js';
import { ChannelChangeLog, channelChangeIndexes } from './channel-change-log.js';
import { channelChangeSweeper } from './channel-change-sweeper.js';
import { ChannelPostViews } from './channel-post-views.js';
import { ChannelReactions, channelReactionIndexes } from './channel-reactions.js';
import { ChannelRepository, channelIndexes } from './channel.js';
import { ChannelGate } from './channel-access.js';
import type { ChannelAccess } from './channel-access.js';
import { channelAccountData } from './channel-account-data.js';
import { channelConversations } from './channel-conversations-adapter.js';
import { channelFollowsMirror } from './channel-follows-mirror.js';
import { ChannelMembers, channelMemberIndexes } from './channel-members.js';
import { ChannelMembership } from './channel-membership.js';
import { ChannelPosting } from './channel-posting.js';
import { ChannelPosts, channelPostIndexes } from './channel-posts.js';
import { ChannelPublisher } from './channel-publisher.js';
import { ChannelContent } from './channel-media.js';
import type { ChannelMedia } from './channel-media.js';
import type { ChannelPollPosts } from './channel-publisher.js';
import { ChannelReadMarkers, channelReadMarkerIndexes } from './channel-read-markers.js';
import { createChannelsService } from './channels-service.js';

export interface ChannelsDependencies {
  readonly settings: ChannelSettings;
  readonly store: DocumentStore;
  readonly accounts: AccountRepository;
  readonly media: ChannelMedia;
  readonly posts: ChannelPostStream;
  readonly follows: ChannelFollows;
  /** Push wake-ups of the followers a post mentions. */
  readonly wakeUps: WakeUps;
  /** The moderation area's admission of posts (suspended publishers) and franking tags. */
  readonly admission: SendAdmission;
  readonly logger: Logger;
  /** Where the change sweeper reports outages. */
  readonly outages: OutageLog;
}

/** Every index of the channels area (created at start, and by the ensure-indexes command before a rollout). */
export const channelsIndexes: IndexSpec[] = [
  ...channelIndexes,
  ...channelMemberIndexes,
  ...channelPostIndexes,
  ...channelReadMarkerIndexes,
  ...channelReactionIndexes,
  ...channelChangeIndexes,
];

export async function createChannelsArea(deps: ChannelsDependencies) {
  await deps.store.ensureIndexes(channelsIndexes);
  const channels = new ChannelRepository(deps.store);
  const members = new ChannelMembers(deps.store);
  const posts = new ChannelPosts(deps.store);
  const membership = new ChannelMembership(
    channels,
    members,
    deps.follows,
    deps.settings.maxSubscriptions,
  );
  const gate = new ChannelGate(channels, members);
  const readMarkers = new ChannelReadMarkers(deps.store);
  const publisher = new ChannelPublisher(channels, posts, deps.posts, deps.media, deps.logger);
  const posting = new ChannelPosting(
    gate,
    deps.media,
    publisher,
    readMarkers,
    posts,
    members,
    deps.wakeUps,
    deps.admission,
  );
  const reactions = new ChannelReactions(deps.store, posts);
  const views = new ChannelPostViews(reactions);
  const changeLog = new ChannelChangeLog(deps.store, posts.posts);
  const changes = new ChannelPostChanges(
    posts,
    deps.media,
    reactions,
    changeLog,
    deps.posts,
    deps.settings.replayPosts,
    deps.logger,
  );
  const content = new ChannelContent(posts, deps.media, readMarkers, reactions, changeLog);
  const access: ChannelAccess = gate;
  return {
    service: createChannelsService({
      channels,
      members,
      membership,
      gate,
      posts,
      posting,
      readMarkers,
      content,
      accounts: deps.accounts,
      media: deps.media,
      views,
    }),
    access,
    pollPosts: publisher as ChannelPollPosts,
    conversations: channelConversations({
      channels,
      members,
      gate,
      posts,
      posting,
      markers: readMarkers,
      reactions,
      changes,
      views,
    }),
    mirror: channelFollowsMirror(members, deps.follows),
    changeSweeper: channelChangeSweeper(changeLog, changes, posts, deps.logger, deps.outages),
    accountData: channelAccountData(
      channels,
      members,
      membership,
      readMarkers,
      content,
      deps.follows,
      reactions,
    ),
  };
}

export type ChannelsArea = Awaited<ReturnType<typeof createChannelsArea>>;
