/** A conversation the SDK sends to or reads: a direct chat with one wallet, or a group. */
export type Conversation = { readonly peer: string } | { readonly groupId: string };

/** The REST fields naming `conversation` (`peer_address` or `group_id`), as generated init. */
export const targetOf = (conversation: Conversation) =>
  'peer' in conversation ? { peerAddress: conversation.peer } : { groupId: conversation.groupId };

/** A stable key for maps of conversations. */
export const conversationKey = (conversation: Conversation): string =>
  'peer' in conversation
    ? `peer:${conversation.peer.toLowerCase()}`
    : `group:${conversation.groupId}`;
