/** Another user's public profile and the caller's relationship to that user (GetPeerInfo). */
import type { Message } from '@bufbuild/protobuf';
import type { BlockList } from '../../contacts/block-list.js';
import type { ContactVerifications } from '../../contacts/contact-verifications.js';
import type { Profile } from '../../gen/service/v1/profile_pb.js';
import { directConversationId as directConversation } from '../conversations/conversation.js';
import type { Conversations } from '../conversations/conversations.js';

/**
 * A user's public profile as `viewer` may see it (the profile area's PublicProfiles, which hides
 * what a user who blocked the viewer would not show). An interface here, because the profile
 * and presence areas depend on messaging's conversations and not the other way round.
 */
export interface ProfileView {
  seenBy(address: string, viewer: string): Promise<Omit<Profile, keyof Message>>;
}

export interface PeerInfoDependencies {
  readonly conversations: Conversations;
  readonly blocks: BlockList;
  readonly verifications: ContactVerifications;
  readonly profiles: ProfileView;
}

export class PeerInfo {
  constructor(private readonly deps: PeerInfoDependencies) {}

  async of(caller: string, peer: string) {
    const { conversations, blocks, verifications, profiles } = this.deps;
    const [profile, blocked, verified, conversation] = await Promise.all([
      profiles.seenBy(peer, caller),
      blocks.isBlocked(caller, peer),
      verifications.isVerified(caller, peer),
      conversations.find(directConversation(caller, peer)),
    ]);
    return {
      profile,
      conversationId: conversation?._id ?? '',
      blocked,
      verified,
      disappearingTimerSeconds: conversation?.disappearingTimerSeconds ?? 0,
    };
  }
}
