/**
 * Which channels each user follows (owns, administers or subscribes to), mirrored from the
 * channels area's store into shared state for the ws pods, which have no store but decide which
 * channel topics a connection receives. The store is the record: the mirror keeper rebuilds
 * this copy whenever Redis lost it (the channels area's `MirrorSource`), and until then a
 * lookup answers `unknown` and the pod waits rather than taking an empty list for "follows
 * nothing" (mirror-completeness.ts).
 *
 * Each change is announced on the follow-changes channel (the user's shard bucket of it, with the
 * user's list: one Redis Cluster slot) in the same atomic script, so the ws pods holding the user's connections join or leave the channel's topic at once; a pod that
 * missed announcements while its subscription was down re-reads its users' lists.
 */
import { BucketedChannel } from '../platform/shared-state/bucketed-channel.js';
import { mirrorKey, readMirror } from '../platform/shared-state/mirror-completeness.js';
import { defineScript } from '../platform/shared-state/shared-state.js';
import type { SharedState, Unsubscribe } from '../platform/shared-state/shared-state.js';

export type FollowChange = '+' | '-';

const announcements = new BucketedChannel('channel-follows');
const listKey = (address: string) => mirrorKey(address, `chf:${address}`);

/** A follow list is the channel ids joined by commas (ids are base64url, without commas). */
function changed(list: string | null, channelId: string, change: FollowChange): string[] {
  const kept = (list ?? '').split(',').filter((each) => each !== '' && each !== channelId);
  if (change === '+') kept.push(channelId);
  return kept;
}

/** KEYS: the user's list, the announcements channel. ARGV: channel id, `+` or `-`, address. */
const updateFollows = defineScript<
  [channelId: string, change: FollowChange, address: string],
  number
>({
  name: 'channel-follows-update',
  keys: 2,
  lua: `local kept = {}
for each in string.gmatch(redis.call('GET', KEYS[1]) or '', '[^,]+') do
  if each ~= ARGV[1] then table.insert(kept, each) end
end
if ARGV[2] == '+' then table.insert(kept, ARGV[1]) end
if #kept == 0 then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], table.concat(kept, ',')) end
redis.call(PUBLISH, KEYS[2], ARGV[3] .. '|' .. ARGV[2] .. '|' .. ARGV[1])
return #kept`,
  local: (state, [key, announcements], [channelId, change, address]) => {
    const kept = changed(state.get(key!), channelId!, change as FollowChange);
    if (kept.length === 0) state.delete(key!);
    else state.set(key!, kept.join(','));
    state.publish(announcements!, `${address}|${change}|${channelId}`);
    return kept.length;
  },
});

export class ChannelFollows {
  constructor(private readonly state: SharedState) {}

  /** Records (idempotently) that the user follows the channel, and tells the ws pods. */
  async follow(address: string, channelId: string): Promise<void> {
    await this.state.run(
      updateFollows,
      [listKey(address), announcements.of(address)],
      [channelId, '+', address],
    );
  }

  async unfollow(address: string, channelId: string): Promise<void> {
    await this.state.run(
      updateFollows,
      [listKey(address), announcements.of(address)],
      [channelId, '-', address],
    );
  }

  /** Replaces a user's whole list (the mirror's rebuild from the store). */
  async replace(address: string, channelIds: readonly string[]): Promise<void> {
    if (channelIds.length === 0) await this.state.delete(listKey(address));
    else await this.state.set(listKey(address), channelIds.join(','));
  }

  /** The channels the user follows; `unknown` while the mirror is incomplete. */
  async of(address: string): Promise<string[] | 'unknown'> {
    const list = await readMirror(this.state, address, listKey(address));
    return list === 'unknown' ? list : changed(list.value, '', '-');
  }

  /** Hears every follow change; `onResubscribed` after announcements may have been lost. */
  listen(
    handler: (address: string, change: FollowChange, channelId: string) => void,
    onResubscribed: () => void,
  ): Promise<Unsubscribe> {
    return announcements.subscribeAll(
      this.state,
      (message) => {
        const [address, change, channelId] = message.split('|');
        if (address && channelId && (change === '+' || change === '-'))
          handler(address, change, channelId);
      },
      onResubscribed,
    );
  }
}
