/** A channel's life: CreateChannel (with its first admins), UpdateChannel and DeleteChannel. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  CreateChannelRequest,
  DeleteChannelRequest,
  UpdateChannelRequest,
} from '../../gen/service/v1/channels_pb.js';
import type { AccountRepository } from '../../accounts/account-repository.js';
import { requireExistingUser } from '../../accounts/existing-user.js';
import { requireCaller } from '../../identity/auth/caller.js';
import { isWalletAddress } from '../../accounts/wallet-address.js';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { ChannelGate } from '../channel-access.js';
import { newChannelId } from '../channel.js';
import type { ChannelRepository, StoredChannel } from '../channel.js';
import type { ChannelContent, ChannelMedia } from '../channel-media.js';
import type { ChannelMembership } from '../channel-membership.js';
import { MAX_ADMINS } from '../channel-rules.js';
import { channelView } from '../channel-view.js';

export interface LifecycleHandlersDependencies {
  readonly channels: ChannelRepository;
  readonly membership: ChannelMembership;
  readonly gate: ChannelGate;
  /** Removes a deleted channel's posts, read markers and held media. */
  readonly content: ChannelContent;
  readonly accounts: AccountRepository;
  readonly media: ChannelMedia;
}

const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;

/** A trimmed name of 1 to 64 characters. */
function channelName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_NAME)
    throw invalidArgument(`name must have 1 to ${MAX_NAME} characters`);
  return trimmed;
}

function description(text: string): string {
  if ([...text].length > MAX_DESCRIPTION)
    throw invalidArgument(`description must have at most ${MAX_DESCRIPTION} characters`);
  return text;
}

export function lifecycleHandlers(deps: LifecycleHandlersDependencies) {
  const { channels, membership, gate } = deps;

  return {
    async createChannel(request: CreateChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const name = channelName(request.name);
      if (request.adminAddresses.length > MAX_ADMINS)
        throw invalidArgument(`At most ${MAX_ADMINS} admin_addresses`);
      if (request.adminAddresses.some((address) => !isWalletAddress(address)))
        throw invalidArgument('admin_addresses must be wallet addresses (0x + 40 hex digits)');
      const admins = [
        ...new Set(request.adminAddresses.map((address) => address.toLowerCase())),
      ].filter((address) => address !== caller);
      for (const admin of admins)
        await requireExistingUser(deps.accounts, admin, 'admin_addresses');
      if (request.avatarMediaId !== '')
        await deps.media.requireOwnUpload(caller, request.avatarMediaId, 'avatar');
      await membership.requireRoom(caller);
      for (const admin of admins) await membership.requireRoom(admin);
      const channelId = newChannelId();
      const holder = { kind: 'channel' as const, id: channelId };
      // Held before the channel exists, so no stored channel shows an avatar the sweeper may delete.
      if (request.avatarMediaId !== '')
        await deps.media.holdAvatar(caller, request.avatarMediaId, holder);
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
        if (request.avatarMediaId !== '')
          await deps.media.releaseAvatar(request.avatarMediaId, holder);
        throw error;
      }
      await membership.join(channel._id, caller, 'owner');
      for (const admin of admins) await membership.join(channel._id, admin, 'admin');
      return { success: true, message: 'Channel created', channel: channelView(channel, 'owner') };
    },

    async updateChannel(request: UpdateChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const changes: Partial<StoredChannel> = {};
      if (request.name !== '') {
        changes.name = channelName(request.name);
        changes.nameLower = changes.name.toLowerCase();
      }
      if (request.clearDescription && request.description !== '')
        throw invalidArgument('description and clear_description exclude each other');
      if (request.clearAvatar && request.avatarMediaId !== '')
        throw invalidArgument('avatar_media_id and clear_avatar exclude each other');
      if (request.description !== '' || request.clearDescription)
        changes.description = description(request.description);
      if (request.avatarMediaId !== '' || request.clearAvatar)
        changes.avatarMediaId = request.avatarMediaId;
      if (Object.keys(changes).length === 0) throw invalidArgument('Nothing to change');
      const { channel, role } = await gate.allowed(request.channelId, caller, 'edit');
      const holder = { kind: 'channel' as const, id: channel._id };
      if (request.avatarMediaId !== '')
        await deps.media.holdAvatar(caller, request.avatarMediaId, holder);
      await channels.update(channel._id, changes);
      const replaced =
        changes.avatarMediaId !== undefined &&
        channel.avatarMediaId !== '' &&
        channel.avatarMediaId !== changes.avatarMediaId;
      if (replaced) await deps.media.releaseAvatar(channel.avatarMediaId, holder);
      return {
        success: true,
        message: 'Channel updated',
        channel: channelView({ ...channel, ...changes }, role),
      };
    },

    async deleteChannel(request: DeleteChannelRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { channel } = await gate.allowed(request.channelId, caller, 'delete');
      await membership.removeChannel(channel, () => deps.content.remove(channel));
      return { success: true, message: 'Channel deleted' };
    },
  };
}
