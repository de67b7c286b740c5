/**
 * The group flows that span several records: creating a group (checking its members and
 * picture), joining by invite code, and the caller's list of groups.
 */
import { randomBytes } from 'node:crypto';
import type { BlockList } from '../contacts/block-list.js';
import type { CursorPosition } from '../platform/api/page-cursor.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { GroupRecord } from './group.js';
import type { GroupCreation } from './group-creation.js';
import type { GroupInvites } from './group-invites.js';
import type { GroupMember, Memberships } from './memberships.js';

const MAX_NAME_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 512;
const MAX_INITIAL_MEMBERS = 256;

export interface NewGroup {
  readonly name: string;
  readonly description: string;
  readonly avatarMediaId: string;
  readonly memberAddresses: readonly string[];
}

/** A group name: 1 to 64 characters after trimming whitespace. */
export function groupName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || [...trimmed].length > MAX_NAME_LENGTH)
    throw invalidArgument(`name must be 1 to ${MAX_NAME_LENGTH} characters`);
  return trimmed;
}

export class Groups {
  constructor(
    private readonly conversations: Conversations,
    private readonly memberships: Memberships,
    private readonly invites: GroupInvites,
    private readonly blocks: BlockList,
    private readonly creation: GroupCreation,
  ) {}

  async create(
    owner: string,
    request: NewGroup,
  ): Promise<{ group: GroupRecord; members: GroupMember[] }> {
    const name = groupName(request.name);
    if ([...request.description].length > MAX_DESCRIPTION_LENGTH)
      throw invalidArgument(`description must be at most ${MAX_DESCRIPTION_LENGTH} characters`);
    if (request.memberAddresses.length > MAX_INITIAL_MEMBERS)
      throw invalidArgument(`member_addresses may list at most ${MAX_INITIAL_MEMBERS} addresses`);
    const named = await Promise.all(
      request.memberAddresses.map((address) =>
        this.conversations.existingUser(address, 'member_addresses'),
      ),
    );
    const candidates = [...new Set(named)].filter((address) => address !== owner);
    // Initial members who have blocked the creator are left out (groups.proto).
    const blockers = await Promise.all(
      candidates.map((address) => this.blocks.isBlocked(address, owner)),
    );
    const members = candidates.filter((_, index) => !blockers[index]);
    const group: GroupRecord = {
      _id: randomBytes(16).toString('base64url'),
      name,
      description: request.description,
      avatarMediaId: request.avatarMediaId,
      ownerAddress: owner,
      memberCount: 0,
      createdAt: new Date(),
    };
    const created = await this.creation.create(group, members);
    return { group: { ...group, memberCount: created.length }, members: created };
  }

  /** Joins with a code: the group, and whether the caller already was a member (the code is then not used). */
  async join(
    joiner: string,
    code: string,
  ): Promise<{ group: GroupRecord; member: GroupMember; alreadyMember: boolean }> {
    const invite = await this.invites.find(code);
    const existing = await this.memberships.member(invite.groupId, joiner);
    if (!existing) {
      await this.invites.check(invite, joiner);
      await this.invites.use(invite);
      try {
        await this.memberships.join(invite.groupId, joiner);
      } catch (error) {
        await this.invites.giveBack(invite);
        throw error;
      }
    }
    const { group, member } = await this.memberships.requireMember(invite.groupId, joiner);
    return { group, member, alreadyMember: existing !== null };
  }

  /** The caller's groups, most recently joined first, with the caller's membership. */
  async listOf(
    address: string,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<{ group: GroupRecord; member: GroupMember }>> {
    const page = await newestFirstPage(
      this.conversations.members,
      { address, type: 'group' },
      'joinedAt',
      limit,
      after,
    );
    const groups = await this.memberships.groups.find({
      _id: { $in: page.items.map((member) => member.groupId) },
    });
    const byId = new Map(groups.map((group) => [group._id, group]));
    const items = page.items.flatMap((member) => {
      const group = byId.get(member.groupId);
      return group ? [{ group, member: member as GroupMember }] : [];
    });
    return { items, nextCursor: page.nextCursor };
  }
}
