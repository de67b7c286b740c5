/** Another user's public profile and the caller's relationship to that user (GetPeerInfo). */
import { directConversationId as directConversation } from '../conversations/conversation.js';
import type { Messaging } from '../messaging-area.js';

export async function peerInfo(messaging: Messaging, caller: string, peer: string) {
  const { accounts, conversations, blocks, verifications, presence } = messaging;
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
