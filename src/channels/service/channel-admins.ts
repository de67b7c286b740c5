/** The admin addresses of a channel as the RPCs print them (sorted). */
import type { ChannelMembers } from '../channel-members.js';

export async function adminAddresses(
  members: ChannelMembers,
  channelId: string,
): Promise<string[]> {
  return (await members.admins(channelId)).map((admin) => admin.address).sort();
}
