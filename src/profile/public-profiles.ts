/**
 * A user's public profile as another user sees it (GetPeerInfo's `profile`, the
 * `profile.changed` event). A user who has blocked the viewer shows that viewer only the
 * address and the username (the names the viewer already knows them by): display name, bio
 * and avatar are empty and the status is `offline`, as presence already reports.
 */
import type { Message } from '@bufbuild/protobuf';
import type { BlockList } from '../contacts/block-list.js';
import type { Profile } from '../gen/service/v1/profile_pb.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Profiles } from './profiles.js';

/** The presence area's status as `viewer` may see it (it already hides it from blocked users). */
export interface StatusView {
  seenBy(address: string, viewer: string): Promise<{ status: string; statusText: string }>;
}

/** The `Profile` message of profile.proto, as a plain object. */
export type PublicProfile = Omit<Profile, keyof Message>;

export class PublicProfiles {
  constructor(
    private readonly accounts: AccountRepository,
    private readonly profiles: Profiles,
    private readonly statuses: StatusView,
    private readonly blocks: BlockList,
  ) {}

  async seenBy(address: string, viewer: string): Promise<PublicProfile> {
    const [account, record, status, hidden] = await Promise.all([
      this.accounts.find(address),
      this.profiles.find(address),
      this.statuses.seenBy(address, viewer),
      address === viewer ? false : this.blocks.isBlocked(address, viewer),
    ]);
    return {
      address,
      username: account?.username ?? '',
      displayName: hidden ? '' : (account?.displayName ?? ''),
      bio: hidden ? '' : (record?.bio ?? ''),
      avatarMediaId: hidden ? '' : (record?.avatarMediaId ?? ''),
      status: status.status,
      statusText: status.statusText,
      lastSeenAt: '',
    };
  }
}
