/** Who holds which role: SubscribeChannel, UnsubscribeChannel, AddChannelAdmin and RemoveChannelAdmin. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  AddChannelAdminRequest,
  RemoveChannelAdminRequest,
  SubscribeChannelRequest,
  UnsubscribeChannelRequest,
} from '../../gen/service/v1/channels_pb.js';
import type { AccountRepository } from '../../accounts/account-repository.js';
import { requireExistingUser } from '../../accounts/existing-user.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { isWalletAddress } from '../../accounts/wallet-address.js';
import { conflict, invalidArgument, permissionDenied } from '../../platform/errors/api-error.js';
import type { ChannelGate } from '../channel-access.js';
import type { ChannelRepository, StoredChannel } from '../channel.js';
import type { ChannelMembers } from '../channel-members.js';
import type { ChannelMembership } from '../channel-membership.js';
import type { ChannelPosts } from '../channel-posts.js';
import type { ChannelReadMarkers } from '../channel-read-markers.js';
import { MAX_ADMINS } from '../channel-rules.js';
import { channelView } from '../channel-view.js';
import { adminAddresses } from './channel-admins.js';

export interface MembershipHandlersDependencies {
  readonly channels: ChannelRepository;
  readonly members: ChannelMembers;
  readonly membership: ChannelMembership;
  readonly gate: ChannelGate;
  readonly posts: ChannelPosts;
  readonly readMarkers: ChannelReadMarkers;
  readonly accounts: AccountRepository;
}

/** A wallet address that is not the channel owner's: 400 otherwise. */
function otherThanOwner(address: string, channel: StoredChannel): string {
  if (!isWalletAddress(address))
    throw invalidArgument('address must be a wallet address (0x + 40 hex digits)');
  const lower = address.toLowerCase();
  if (lower === channel.ownerAddress) throw invalidArgument('address is the owner');
  return lower;
}

export function membershipHandlers(deps: MembershipHandlersDependencies) {
  const { channels, members, membership, gate } = deps;

  return {
    async subscribeChannel(request: SubscribeChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel, role } = await gate.existing(request.channelId, caller);
      if (role)
        return { success: true, message: 'Already following', channel: channelView(channel, role) };
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
      if (role === 'owner')
        throw permissionDenied('The owner cannot unsubscribe: delete the channel instead');
      if (!role) return { success: true, message: 'Not subscribed' };
      await membership.leave(channel._id, caller, role);
      await deps.readMarkers.forget(channel._id, caller);
      return { success: true, message: 'Unsubscribed' };
    },

    async addChannelAdmin(request: AddChannelAdminRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel } = await gate.allowed(request.channelId, caller, 'manage_admins');
      const address = otherThanOwner(request.address, channel);
      await requireExistingUser(deps.accounts, address, 'address');
      const current = await members.find(channel._id, address);
      if (current?.role !== 'admin') {
        if ((await members.admins(channel._id)).length >= MAX_ADMINS)
          throw conflict(`A channel has at most ${MAX_ADMINS} admins`);
        if (!current) await membership.requireRoom(address);
        await membership.promote(channel._id, address);
      }
      return {
        success: true,
        message: 'Admin added',
        adminAddresses: await adminAddresses(members, channel._id),
      };
    },

    async removeChannelAdmin(request: RemoveChannelAdminRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel } = await gate.allowed(request.channelId, caller, 'manage_admins');
      const address = otherThanOwner(request.address, channel);
      const demoted = await membership.demote(channel._id, address);
      return {
        success: true,
        message: demoted ? 'Admin removed' : 'Not an admin',
        adminAddresses: await adminAddresses(members, channel._id),
      };
    },
  };
}
