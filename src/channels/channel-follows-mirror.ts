/**
 * The follow mirror as the mirror keeper rebuilds it: every user's list of channels, copied
 * from `channel_members` in (address, channel) order, one user at a time.
 */
import type { MirrorSource } from '../platform/shared-state/mirror-keeper.js';
import type { ChannelFollows } from '../events/channel-follows.js';
import type { ChannelMember, ChannelMembers } from './channel-members.js';

const BATCH = 1000;

export function channelFollowsMirror(
  members: ChannelMembers,
  follows: ChannelFollows,
): MirrorSource {
  return {
    name: 'channel-follows',
    async restore() {
      let copied = 0;
      let after: ChannelMember | undefined;
      let address = '';
      let list: string[] = [];
      for (;;) {
        const batch = await members.batchAfter(after, BATCH);
        for (const member of batch) {
          if (member.address !== address) {
            if (list.length > 0) await follows.replace(address, list);
            address = member.address;
            list = [];
          }
          list.push(member.channelId);
          copied++;
        }
        if (batch.length < BATCH) break;
        after = batch[batch.length - 1];
      }
      if (list.length > 0) await follows.replace(address, list);
      return copied;
    },
  };
}
