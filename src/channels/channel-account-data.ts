/**
 * The channels area's records keyed by a wallet address, for recovery and account deletion.
 *
 * Move: every role is re-keyed to the new address (the follow mirror too) and owned channels
 * name the new owner. Where the new address already has a role in the same channel, the
 * stronger one is kept (owner > admin > subscriber) and the other record is dropped. Posts keep
 * the address they were published under (history, as for sent messages). Read markers are
 * re-keyed; where the new address has one in the same channel, the one further ahead is kept.
 * Delete: the channels the user owns are deleted with their posts, read markers and followers
 * (their media and avatars released); the user's admin roles, subscriptions and read markers
 * elsewhere are removed.
 * Reactions on posts: a move gives the user's keys to the new address, a deletion takes them
 * off the counts (channel-reactions.ts).
 * Both repeat safely after a crash: each step filters on the old address.
 */
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelRepository } from './channel.js';
import { strongerRole } from './channel-members.js';
import type { ChannelMembers } from './channel-members.js';
import type { ChannelMembership } from './channel-membership.js';
import type { ChannelContent } from './channel-media.js';
import type { ChannelReadMarkers } from './channel-read-markers.js';
import type { ChannelReactions } from './channel-reactions.js';

export function channelAccountData(
  channels: ChannelRepository,
  members: ChannelMembers,
  membership: ChannelMembership,
  markers: ChannelReadMarkers,
  content: ChannelContent,
  follows: ChannelFollows,
  reactions: ChannelReactions,
): AccountDataOwner {
  return {
    name: 'channels',

    async moveAccount(from, to) {
      await channels.transferOwnership(from, to);
      for (const member of await members.ofAddress(from)) {
        const existing = await members.find(member.channelId, to);
        if (!existing) await membership.join(member.channelId, to, member.role);
        else if (strongerRole(existing.role, member.role) !== existing.role)
          await members.changeRole(member.channelId, to, existing.role, member.role);
        // Two records become one: a subscriber among them is one subscriber fewer.
        const merged =
          existing !== null && (existing.role === 'subscriber' || member.role === 'subscriber');
        await membership.leave(member.channelId, from, member.role);
        if (merged && member.role !== 'subscriber')
          await channels.addSubscribers(member.channelId, -1);
      }
      await markers.move(from, to);
      await reactions.moveReader(from, to);
      await follows.replace(from, []);
    },

    async deleteAccount(address) {
      for (const channel of await channels.ownedBy(address))
        await membership.removeChannel(channel, () => content.remove(channel));
      for (const member of await members.ofAddress(address))
        await membership.leave(member.channelId, address, member.role);
      await markers.removeAddress(address);
      await reactions.removeReader(address);
      await follows.replace(address, []);
    },
  };
}
