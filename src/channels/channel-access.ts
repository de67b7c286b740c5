/**
 * Whether an address may see, read or act in a channel, the one place that decides 404 versus
 * 403: a private channel the caller has no role in is reported as unknown (404), a visible
 * channel where the role does not allow the action as forbidden (403). The polls area receives
 * this as `ChannelAccess` (may this address read, may it publish).
 */
import { notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { ChannelRepository, StoredChannel } from './channel.js';
import type { ChannelMembers, ChannelRole } from './channel-members.js';
import { mayDo } from './channel-rules.js';
import type { ChannelAction } from './channel-rules.js';

/** What other areas (polls in a channel) may ask. */
export interface ChannelAccess {
  /** The channel exists and the address may read it (public, or a role in it). */
  mayRead(channelId: string, address: string): Promise<boolean>;
  /** The address is the channel's owner or an admin. */
  mayPublish(channelId: string, address: string): Promise<boolean>;
}

export interface VisibleChannel {
  readonly channel: StoredChannel;
  readonly role: ChannelRole | undefined;
}

export class ChannelGate implements ChannelAccess {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly members: ChannelMembers,
  ) {}

  /** The channel and the caller's role in it: 404 when unknown or private without a role. */
  async visible(channelId: string, address: string): Promise<VisibleChannel> {
    const channel = await this.channels.find(channelId);
    const member = channel ? await this.members.find(channelId, address) : null;
    if (!channel || (!channel.isPublic && !member)) throw notFound('No such channel');
    return { channel, role: member?.role };
  }

  /** Any existing channel (subscribing needs only its id): 404 when unknown. */
  async existing(channelId: string, address: string): Promise<VisibleChannel> {
    const channel = await this.channels.find(channelId);
    if (!channel) throw notFound('No such channel');
    return { channel, role: (await this.members.find(channelId, address))?.role };
  }

  /** A visible channel where the caller's role allows `action`; 403 otherwise. */
  async allowed(
    channelId: string,
    address: string,
    action: ChannelAction,
  ): Promise<VisibleChannel> {
    const visible = await this.visible(channelId, address);
    if (!mayDo(visible.role, action))
      throw permissionDenied(
        action === 'publish'
          ? 'Only the owner and admins may publish'
          : `Your role does not allow this (${action})`,
      );
    return visible;
  }

  async mayRead(channelId: string, address: string): Promise<boolean> {
    const channel = await this.channels.find(channelId);
    return (
      channel !== null &&
      (channel.isPublic || (await this.members.find(channelId, address)) !== null)
    );
  }

  async mayPublish(channelId: string, address: string): Promise<boolean> {
    return mayDo((await this.members.find(channelId, address))?.role, 'publish');
  }
}
