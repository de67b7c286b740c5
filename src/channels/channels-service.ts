/** ChannelsService (channels.proto): broadcast channels, their roles, posts and subscriptions. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  AddChannelAdminRequest,
  CreateChannelRequest,
  DeleteChannelRequest,
  GetChannelRequest,
  ListChannelPostsRequest,
  ListChannelsRequest,
  PublishChannelPostRequest,
  RemoveChannelAdminRequest,
  SubscribeChannelRequest,
  UnsubscribeChannelRequest,
  UpdateChannelRequest,
} from '../gen/service/v1/channels_pb.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import { requireExistingUser } from '../accounts/existing-user.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { decodeCursor, encodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { conflict, invalidArgument, permissionDenied } from '../platform/errors/api-error.js';
import type { ChannelGate } from './channel-access.js';
import { newChannelId } from './channel.js';
import type { ChannelRepository, StoredChannel } from './channel.js';
import type { ChannelContent, ChannelMedia } from './channel-media.js';
import type { ChannelMembers } from './channel-members.js';
import type { ChannelMembership } from './channel-membership.js';
import type { ChannelPosts } from './channel-posts.js';
import type { ChannelPosting } from './channel-posting.js';
import type { ChannelReadMarkers } from './channel-read-markers.js';
import { MAX_ADMINS } from './channel-rules.js';
import { channelView, postView } from './channel-view.js';

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
}

const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_QUERY = 64;

/** A trimmed name of 1 to 64 characters. */
function channelName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_NAME) throw invalidArgument(`name must have 1 to ${MAX_NAME} characters`);
  return trimmed;
}

function description(text: string): string {
  if ([...text].length > MAX_DESCRIPTION) throw invalidArgument(`description must have at most ${MAX_DESCRIPTION} characters`);
  return text;
}

export function createChannelsService(deps: ChannelsServiceDependencies) {
  const { channels, members, membership, gate } = deps;

  const adminsOf = async (channelId: string) => (await members.admins(channelId)).map((admin) => admin.address).sort();

  /** A wallet address that is not the channel owner's: 400 otherwise. */
  const otherThanOwner = (address: string, channel: StoredChannel) => {
    if (!isWalletAddress(address)) throw invalidArgument('address must be a wallet address (0x + 40 hex digits)');
    const lower = address.toLowerCase();
    if (lower === channel.ownerAddress) throw invalidArgument('address is the owner');
    return lower;
  };

  return {
    async createChannel(request: CreateChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const name = channelName(request.name);
      if (request.adminAddresses.length > MAX_ADMINS) throw invalidArgument(`At most ${MAX_ADMINS} admin_addresses`);
      if (request.adminAddresses.some((address) => !isWalletAddress(address))) throw invalidArgument('admin_addresses must be wallet addresses (0x + 40 hex digits)');
      const admins = [...new Set(request.adminAddresses.map((address) => address.toLowerCase()))].filter((address) => address !== caller);
      for (const admin of admins) await requireExistingUser(deps.accounts, admin, 'admin_addresses');
      if (request.avatarMediaId !== '') await deps.media.requireOwnUpload(caller, request.avatarMediaId, 'avatar');
      await membership.requireRoom(caller);
      for (const admin of admins) await membership.requireRoom(admin);
      const channelId = newChannelId();
      const holder = { kind: 'channel' as const, id: channelId };
      // Held before the channel exists, so no stored channel shows an avatar the sweeper may delete.
      if (request.avatarMediaId !== '') await deps.media.holdAvatar(caller, request.avatarMediaId, holder);
      const channel: StoredChannel = {
        _id: channelId,
        name,
        nameLower: name.toLowerCase(),
        description: description(request.description),
        avatarMediaId: request.avatarMediaId,
        ownerAddress: caller,
        isPublic: request.isPublic,
        createdAt: new Date(),
        subscriberCount: 0,
        lastPostAt: null,
        lastSequence: 0,
      };
      try {
        await channels.insert(channel);
      } catch (error) {
        if (request.avatarMediaId !== '') await deps.media.releaseAvatar(request.avatarMediaId, holder);
        throw error;
      }
      await membership.join(channel._id, caller, 'owner');
      for (const admin of admins) await membership.join(channel._id, admin, 'admin');
      return { success: true, message: 'Channel created', channel: channelView(channel, 'owner') };
    },

    async listChannels(request: ListChannelsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      if (request.scope === 'public') {
        if ([...request.query].length > MAX_QUERY) throw invalidArgument(`query must have at most ${MAX_QUERY} characters`);
        const page = await channels.directory(request.query.trim(), limit, after);
        const roles = await members.rolesAmong(caller, page.items.map((channel) => channel._id));
        return { success: true, message: `${page.items.length} channels`, channels: page.items.map((channel) => channelView(channel, roles.get(channel._id))), nextCursor: page.nextCursor };
      }
      if (request.scope !== '' && request.scope !== 'subscribed') throw invalidArgument('scope must be subscribed or public');
      // A user follows at most CHANNEL_MAX_SUBSCRIPTIONS channels: they are ordered in memory.
      const mine = await members.ofAddress(caller);
      const roles = new Map(mine.map((member) => [member.channelId, member.role]));
      const activity = (channel: StoredChannel) => (channel.lastPostAt ?? channel.createdAt).getTime();
      const ordered = (await channels.findMany([...roles.keys()]))
        .sort((a, b) => activity(b) - activity(a) || (a._id < b._id ? -1 : 1))
        .filter((channel) => !after || activity(channel) < after.sortValue || (activity(channel) === after.sortValue && channel._id > after.id));
      const items = ordered.slice(0, limit);
      const last = items[items.length - 1];
      const nextCursor = ordered.length > limit && last ? encodeCursor({ sortValue: activity(last), id: last._id }) : '';
      return { success: true, message: `${items.length} channels`, channels: items.map((channel) => channelView(channel, roles.get(channel._id))), nextCursor };
    },

    async getChannel(request: GetChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel, role } = await gate.visible(request.channelId, caller);
      return { success: true, message: 'Channel', channel: channelView(channel, role), adminAddresses: await adminsOf(channel._id) };
    },

    async subscribeChannel(request: SubscribeChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel, role } = await gate.existing(request.channelId, caller);
      if (role) return { success: true, message: 'Already following', channel: channelView(channel, role) };
      await membership.requireRoom(caller);
      await membership.join(channel._id, caller, 'subscriber');
      // A new follower starts with nothing unread: its read marker begins at the newest post.
      const newest = await deps.posts.newest(channel._id);
      if (newest) await deps.readMarkers.advance(channel._id, caller, newest.sequence, newest._id);
      const current = (await channels.find(channel._id)) ?? channel;
      return { success: true, message: 'Subscribed', channel: channelView(current, 'subscriber') };
    },

    async unsubscribeChannel(request: UnsubscribeChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel, role } = await gate.visible(request.channelId, caller);
      if (role === 'owner') throw permissionDenied('The owner cannot unsubscribe: delete the channel instead');
      if (!role) return { success: true, message: 'Not subscribed' };
      await membership.leave(channel._id, caller, role);
      await deps.readMarkers.forget(channel._id, caller);
      return { success: true, message: 'Unsubscribed' };
    },

    async publishChannelPost(request: PublishChannelPostRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { post, duplicate } = await deps.posting.publish(caller, request);
      return { success: true, message: duplicate ? 'Already published' : 'Published', chatMessage: post, duplicate };
    },

    async listChannelPosts(request: ListChannelPostsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const { channel } = await gate.visible(request.channelId, caller);
      const page = await deps.posts.page(channel._id, limit, after);
      return { success: true, message: `${page.items.length} posts`, posts: page.items.map(postView), nextCursor: page.nextCursor };
    },

    async updateChannel(request: UpdateChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const changes: Partial<StoredChannel> = {};
      if (request.name !== '') {
        changes.name = channelName(request.name);
        changes.nameLower = changes.name.toLowerCase();
      }
      if (request.clearDescription && request.description !== '') throw invalidArgument('description and clear_description exclude each other');
      if (request.clearAvatar && request.avatarMediaId !== '') throw invalidArgument('avatar_media_id and clear_avatar exclude each other');
      if (request.description !== '' || request.clearDescription) changes.description = description(request.description);
      if (request.avatarMediaId !== '' || request.clearAvatar) changes.avatarMediaId = request.avatarMediaId;
      if (Object.keys(changes).length === 0) throw invalidArgument('Nothing to change');
      const { channel, role } = await gate.allowed(request.channelId, caller, 'edit');
      const holder = { kind: 'channel' as const, id: channel._id };
      if (request.avatarMediaId !== '') await deps.media.holdAvatar(caller, request.avatarMediaId, holder);
      await channels.update(channel._id, changes);
      const replaced = changes.avatarMediaId !== undefined && channel.avatarMediaId !== '' && channel.avatarMediaId !== changes.avatarMediaId;
      if (replaced) await deps.media.releaseAvatar(channel.avatarMediaId, holder);
      return { success: true, message: 'Channel updated', channel: channelView({ ...channel, ...changes }, role) };
    },

    async deleteChannel(request: DeleteChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel } = await gate.allowed(request.channelId, caller, 'delete');
      await membership.removeChannel(channel, () => deps.content.remove(channel));
      return { success: true, message: 'Channel deleted' };
    },

    async addChannelAdmin(request: AddChannelAdminRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel } = await gate.allowed(request.channelId, caller, 'manage_admins');
      const address = otherThanOwner(request.address, channel);
      await requireExistingUser(deps.accounts, address, 'address');
      const current = await members.find(channel._id, address);
      if (current?.role !== 'admin') {
        if ((await members.admins(channel._id)).length >= MAX_ADMINS) throw conflict(`A channel has at most ${MAX_ADMINS} admins`);
        if (!current) await membership.requireRoom(address);
        await membership.promote(channel._id, address);
      }
      return { success: true, message: 'Admin added', adminAddresses: await adminsOf(channel._id) };
    },

    async removeChannelAdmin(request: RemoveChannelAdminRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel } = await gate.allowed(request.channelId, caller, 'manage_admins');
      const address = otherThanOwner(request.address, channel);
      const demoted = await membership.demote(channel._id, address);
      return { success: true, message: demoted ? 'Admin removed' : 'Not an admin', adminAddresses: await adminsOf(channel._id) };
    },
  };
}
