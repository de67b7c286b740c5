/**
 * An invite code of a group, stored by the SHA-256 of the code: the store never holds a usable
 * code, and a lookup by hash is an exact `_id` match. Expired codes are kept a day longer, so
 * that joining with one answers `410 GONE` rather than `404`.
 */
import type { IndexSpec } from '../platform/store/document-store.js';

export interface GroupInvite {
  /** base64url SHA-256 of the code. */
  _id: string;
  groupId: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  /** 0: unlimited. */
  maxUses: number;
  /** Uses left when `maxUses` > 0; taken by a conditional `$inc`, so concurrent joins cannot overuse it. */
  remainingUses: number;
  revokedAt: Date | null;
  /** When the store deletes the record (TTL): a day after it expired. */
  purgeAt: Date;
}

export const GROUP_INVITES = 'group_invites';

export const groupInviteIndexes: IndexSpec[] = [
  { collection: GROUP_INVITES, name: 'purge', key: { purgeAt: 1 }, expireAfterSeconds: 0 },
  { collection: GROUP_INVITES, name: 'by_group', key: { groupId: 1 } },
  { collection: GROUP_INVITES, name: 'by_creator', key: { createdBy: 1 } },
];
