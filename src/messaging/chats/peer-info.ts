/** Another user's public profile and the caller's relationship to that user (GetPeerInfo). */
import type { BlockList } from '../../contacts/block-list.js';
import type { ContactVerifications } from '../../contacts/contact-verifications.js';
import type { AccountRepository } from '../../identity/accounts/account-repository.js';
import { directConversationId as directConversation } from '../conversations/conversation.js';
import type { Conversations } from '../conversations/conversations.js';

/**
 * What `viewer` may see of a user's presence status (the presence area's Presence). An interface
 * here, because presence depends on messaging's conversations and not the other way round.
 */
export interface PresenceView {
  seenBy(address: string, viewer: string): Promise<{ status: string; statusText: string }>;
}

export interface PeerInfoDependencies {
  readonly accounts: AccountRepository;
  readonly conversations: Conversations;
  readonly blocks: BlockList;
  readonly verifications: ContactVerifications;
  readonly presence: PresenceView;
}

export class PeerInfo {
  constructor(private readonly deps: PeerInfoDependencies) {}

  async of(caller: string, peer: string) {
    const { accounts, conversations, blocks, verifications, presence } = this.deps;
    const [account, status, blocked, verified, conversation] = await Promise.all([
      accounts.find(peer),
      presence.seenBy(peer, caller),
      blocks.isBlocked(caller, peer),
      verifications.isVerified(caller, peer),
      conversations.find(directConversation(caller, peer)),
    ]);
    return {
      profile: {
        address: peer,
        username: account?.username ?? '',
        displayName: account?.displayName ?? '',
        bio: '',
        avatarMediaId: '',
        status: status.status,
        statusText: status.statusText,
        lastSeenAt: '',
      },
      conversationId: conversation?._id ?? '',
      blocked,
      verified,
      disappearingTimerSeconds: conversation?.disappearingTimerSeconds ?? 0,
    };
  }
}
