/**
 * A group's own record: its metadata in clear (name, description, picture), its owner and its
 * member count. The group's conversation (`group:<id>`, conversations.ts) holds its messages,
 * and each member's `conversation_members` record holds the member's role, joining time and
 * read marker: the group has no member list of its own.
 */
import type { IndexSpec } from '../platform/store/document-store.js';
import { CONVERSATION_MEMBERS } from '../messaging/conversations/conversation.js';

export interface GroupRecord {
  /** The group id: 22 URL-safe characters (128 random bits). */
  _id: string;
  name: string;
  description: string;
  avatarMediaId: string;
  ownerAddress: string;
  /**
   * Members including the owner: raised by a conditional `$inc` that refuses to pass the
   * group-size limit (so concurrent joins cannot exceed it), lowered when a member goes.
   */
  memberCount: number;
  createdAt: Date;
  /** Set while the creation is under way (group-creation.ts): the initial members still to be written. */
  pendingMembers?: string[];
  /** Set while the creation is under way: when a creation still marked is taken as cut off and resumed. */
  creationCheckAt?: Date;
}

export const GROUPS = 'groups';

export const conversationIdOf = (groupId: string) => `group:${groupId}`;

export const groupIndexes: IndexSpec[] = [
  // Creations cut off by a crash, for their resumption (group-creation.ts).
  { collection: GROUPS, name: 'creation_check', key: { creationCheckAt: 1 } },
  // The caller's groups, most recently joined first (ListGroups).
  {
    collection: CONVERSATION_MEMBERS,
    name: 'groups_by_member',
    key: { address: 1, type: 1, joinedAt: -1, _id: 1 },
  },
];
