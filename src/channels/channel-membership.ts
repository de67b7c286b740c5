/**
 * Joining and leaving channels, and their admin roles: the member records, the channel's
 * subscriber count and the follow mirror (which ws pods read to route posts) kept together.
 *
 * Mirror order (docs/architecture.md, "Mirrors"): what stops delivery goes to the mirror first
 * and then to the store, what starts it goes to the store first, so a failure in between never
 * leaves a user receiving a channel the store says they left.
 */
import { conflict } from '../platform/errors/api-error.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelRepository, StoredChannel } from './channel.js';
import type { ChannelMembers, ChannelRole } from './channel-members.js';

/** Member records removed per round trip when a channel is deleted. */
const DELETE_BATCH = 500;

export class ChannelMembership {
  constructor(
    private readonly channels: ChannelRepository,
    private readonly members: ChannelMembers,
    private readonly follows: ChannelFollows,
    private readonly maxSubscriptions: number,
  ) {}

  /** 409 SUBSCRIPTION_LIMIT when the user already follows as many channels as allowed. */
  async requireRoom(address: string): Promise<void> {
    if ((await this.members.countOf(address)) >= this.maxSubscriptions) {
      throw conflict(
        `At most ${this.maxSubscriptions} channels can be followed`,
        'SUBSCRIPTION_LIMIT',
      );
    }
  }

  /** Gives the user a role in the channel unless they have one; true when they did not. */
  async join(channelId: string, address: string, role: ChannelRole): Promise<boolean> {
    const added = await this.members.add({ channelId, address, role, since: new Date() });
    if (added && role === 'subscriber') await this.channels.addSubscribers(channelId, 1);
    await this.follows.follow(address, channelId);
    return added;
  }

  /** Removes the user's record if it has `role`; true when it did. */
  async leave(channelId: string, address: string, role: ChannelRole): Promise<boolean> {
    await this.follows.unfollow(address, channelId);
    const removed = await this.members.remove(channelId, address, role);
    if (removed && role === 'subscriber') await this.channels.addSubscribers(channelId, -1);
    return removed;
  }

  /** A subscriber becomes an admin (a non-member joins as one). */
  async promote(channelId: string, address: string): Promise<void> {
    if (await this.members.changeRole(channelId, address, 'subscriber', 'admin'))
      await this.channels.addSubscribers(channelId, -1);
    else await this.join(channelId, address, 'admin');
  }

  /** An admin becomes a subscriber; false when they were not an admin. */
  async demote(channelId: string, address: string): Promise<boolean> {
    const demoted = await this.members.changeRole(channelId, address, 'admin', 'subscriber');
    if (demoted) await this.channels.addSubscribers(channelId, 1);
    return demoted;
  }

  /** Deletes the channel: followers first (delivery stops), then posts (by the caller), members, the record. */
  async removeChannel(
    channel: StoredChannel,
    removePosts: (channelId: string) => Promise<void>,
  ): Promise<void> {
    for (;;) {
      const batch = await this.members.inChannel(channel._id, DELETE_BATCH);
      await Promise.all(batch.map((member) => this.follows.unfollow(member.address, channel._id)));
      if (batch.length < DELETE_BATCH) break;
      // Unfollowed; the records go below, so the next batch must skip these.
      await Promise.all(
        batch.map((member) => this.members.remove(channel._id, member.address, member.role)),
      );
    }
    await removePosts(channel._id);
    await this.members.removeChannel(channel._id);
    await this.channels.delete(channel._id);
  }
}
