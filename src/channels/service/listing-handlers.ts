/** Finding channels: ListChannels (the caller's, or the public directory) and GetChannel. */
import type { HandlerContext } from '@connectrpc/connect';
import type { GetChannelRequest, ListChannelsRequest } from '../../gen/service/v1/channels_pb.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { decodeCursor, encodeCursor, pageSize } from '../../platform/api/page-cursor.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { ChannelGate } from '../channel-access.js';
import type { ChannelRepository, StoredChannel } from '../channel.js';
import type { ChannelMembers } from '../channel-members.js';
import { channelView } from '../channel-view.js';
import { adminAddresses } from './channel-admins.js';

export interface ListingHandlersDependencies {
  readonly channels: ChannelRepository;
  readonly members: ChannelMembers;
  readonly gate: ChannelGate;
}

const MAX_QUERY = 64;

export function listingHandlers(deps: ListingHandlersDependencies) {
  const { channels, members, gate } = deps;

  return {
    async listChannels(request: ListChannelsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      if (request.scope === 'public') {
        if ([...request.query].length > MAX_QUERY)
          throw invalidArgument(`query must have at most ${MAX_QUERY} characters`);
        const page = await channels.directory(request.query.trim(), limit, after);
        const roles = await members.rolesAmong(
          caller,
          page.items.map((channel) => channel._id),
        );
        return {
          success: true,
          message: `${page.items.length} channels`,
          channels: page.items.map((channel) => channelView(channel, roles.get(channel._id))),
          nextCursor: page.nextCursor,
        };
      }
      if (request.scope !== '' && request.scope !== 'subscribed')
        throw invalidArgument('scope must be subscribed or public');
      // A user follows at most CHANNEL_MAX_SUBSCRIPTIONS channels: they are ordered in memory.
      const mine = await members.ofAddress(caller);
      const roles = new Map(mine.map((member) => [member.channelId, member.role]));
      const activity = (channel: StoredChannel) =>
        (channel.lastPostAt ?? channel.createdAt).getTime();
      const ordered = (await channels.findMany([...roles.keys()]))
        .sort((a, b) => activity(b) - activity(a) || (a._id < b._id ? -1 : 1))
        .filter(
          (channel) =>
            !after ||
            activity(channel) < after.sortValue ||
            (activity(channel) === after.sortValue && channel._id > after.id),
        );
      const items = ordered.slice(0, limit);
      const last = items[items.length - 1];
      const nextCursor =
        ordered.length > limit && last
          ? encodeCursor({ sortValue: activity(last), id: last._id })
          : '';
      return {
        success: true,
        message: `${items.length} channels`,
        channels: items.map((channel) => channelView(channel, roles.get(channel._id))),
        nextCursor,
      };
    },

    async getChannel(request: GetChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel, role } = await gate.visible(request.channelId, caller);
      return {
        success: true,
        message: 'Channel',
        channel: channelView(channel, role),
        adminAddresses: await adminAddresses(members, channel._id),
      };
    },
  };
}
