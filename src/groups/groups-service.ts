/**
 * GroupsService (groups.proto): each RPC checks its request's shape, finds the caller's
 * membership (404 for non-members, so group ids are not revealed), applies the role table
 * (group-roles.ts) and hands the change to Memberships, GroupInvites or Groups.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  CreateGroupInviteRequest,
  CreateGroupRequest,
  DemoteMemberRequest,
  GetGroupRequest,
  JoinGroupRequest,
  LeaveGroupRequest,
  ListGroupsRequest,
  PromoteMemberRequest,
  RemoveMemberRequest,
  RenameGroupRequest,
  UpdateGroupSettingsRequest,
  RevokeGroupInviteRequest,
} from '../gen/service/v1/groups_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { GroupRecord } from './group.js';
import type { GroupInvites } from './group-invites.js';
import { mayChangeRoles, mayManage, mayRemove, roleCanChange } from './group-roles.js';
import type { GroupRole } from './group-roles.js';
import { groupName } from './groups.js';
import type { Groups } from './groups.js';
import type { GroupMember, GroupSettings, Memberships } from './memberships.js';

export interface GroupsServiceDependencies {
  readonly groups: Groups;
  readonly memberships: Memberships;
  readonly invites: GroupInvites;
}

const iso = (date: Date) => date.toISOString();

const groupView = (
  group: GroupRecord,
  myRole: GroupRole,
  settings: ReadonlyMap<string, GroupSettings> = new Map(),
) => ({
  id: group._id,
  name: group.name,
  description: group.description,
  avatarMediaId: group.avatarMediaId,
  ownerAddress: group.ownerAddress,
  memberCount: group.memberCount,
  createdAt: iso(group.createdAt),
  myRole,
  disappearingTimerSeconds: settings.get(group._id)?.disappearingTimerSeconds ?? 0,
  membersCanPin: settings.get(group._id)?.membersCanPin ?? false,
});

const memberView = (member: GroupMember) => ({
  address: member.address,
  role: member.role,
  joinedAt: iso(member.joinedAt),
});

export function createGroupsService({ groups, memberships, invites }: GroupsServiceDependencies) {
  /** The caller's membership of a group and the group; 403 unless `allowed` says the role may act. */
  const callerIn = async (
    groupId: string,
    context: HandlerContext,
    allowed: (role: GroupRole) => boolean = () => true,
  ) => {
    const caller = requireCaller(context).address;
    const found = await memberships.requireMember(groupId, caller);
    if (!allowed(found.member.role))
      throw permissionDenied('Your role in this group does not allow this');
    return { caller, ...found };
  };

  /** A member named in the path: 404 when the address is malformed or not a member (groups.proto). */
  const memberNamed = async (groupId: string, address: string) => {
    const member = isWalletAddress(address)
      ? await memberships.member(groupId, address.toLowerCase())
      : null;
    if (!member) throw notFound('No such member in this group');
    return member;
  };

  /** Promote and demote (group-roles.ts). */
  const changeRole = async (
    request: PromoteMemberRequest | DemoteMemberRequest,
    context: HandlerContext,
    role: 'admin' | 'member',
  ) => {
    const { caller } = await callerIn(request.groupId, context, mayChangeRoles);
    const target = await memberNamed(request.groupId, request.address);
    if (!roleCanChange(target.role)) throw permissionDenied("The owner's role cannot change");
    return memberships.setRole(request.groupId, caller, target, role);
  };

  return {
    async createGroup(request: CreateGroupRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const { group, members } = await groups.create(caller, request);
      return {
        success: true,
        message: 'Group created',
        group: groupView(group, 'owner'),
        members: members.map(memberView),
      };
    },

    async listGroups(request: ListGroupsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (request.pageSize < 0 || request.pageSize > 200)
        throw invalidArgument('page_size must be between 1 and 200 (0: 50)');
      const page = await groups.listOf(
        caller,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      const timers = await memberships.timersOf(page.items.map(({ group }) => group._id));
      return {
        success: true,
        message: `${page.items.length} groups`,
        groups: page.items.map(({ group, member }) => groupView(group, member.role, timers)),
        nextCursor: page.nextCursor,
      };
    },

    async getGroup(request: GetGroupRequest, context: HandlerContext) {
      const { group, member } = await callerIn(request.groupId, context);
      const [members, timers] = await Promise.all([
        memberships.list(request.groupId),
        memberships.timersOf([group._id]),
      ]);
      return {
        success: true,
        message: 'Group found',
        group: groupView(group, member.role, timers),
        members: members.map(memberView),
      };
    },

    async joinGroup(request: JoinGroupRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const joined = await groups.join(caller, request.inviteCode);
      return {
        success: true,
        message: joined.alreadyMember ? 'Already a member' : 'Joined the group',
        group: groupView(
          joined.group,
          joined.member.role,
          await memberships.timersOf([joined.group._id]),
        ),
        alreadyMember: joined.alreadyMember,
      };
    },

    async leaveGroup(request: LeaveGroupRequest, context: HandlerContext) {
      const { caller } = await callerIn(request.groupId, context);
      const outcome = await memberships.depart(request.groupId, caller, 'member_left', caller);
      return {
        success: true,
        message: outcome.groupDeleted ? 'Left; the group was deleted' : 'Left the group',
        newOwnerAddress: outcome.newOwner,
        groupDeleted: outcome.groupDeleted,
      };
    },

    async createGroupInvite(request: CreateGroupInviteRequest, context: HandlerContext) {
      const { caller } = await callerIn(request.groupId, context, mayManage);
      const { code, invite } = await invites.create(
        request.groupId,
        caller,
        request.maxUses,
        request.expiresInSeconds,
      );
      return {
        success: true,
        message: 'Invite created',
        inviteCode: code,
        expiresAt: iso(invite.expiresAt),
        maxUses: invite.maxUses,
      };
    },

    async revokeGroupInvite(request: RevokeGroupInviteRequest, context: HandlerContext) {
      await callerIn(request.groupId, context, mayManage);
      await invites.revoke(request.groupId, request.inviteCode);
      return { success: true, message: 'Invite revoked' };
    },

    async renameGroup(request: RenameGroupRequest, context: HandlerContext) {
      const name = groupName(request.name);
      const { caller, member } = await callerIn(request.groupId, context, mayManage);
      const group = await memberships.rename(request.groupId, caller, name);
      return {
        success: true,
        message: 'Group renamed',
        group: groupView(group, member.role, await memberships.timersOf([group._id])),
      };
    },

    async updateGroupSettings(request: UpdateGroupSettingsRequest, context: HandlerContext) {
      const { group, member } = await callerIn(request.groupId, context, mayManage);
      await memberships.setMembersCanPin(request.groupId, request.membersCanPin);
      return {
        success: true,
        message: 'Group settings updated',
        group: groupView(group, member.role, await memberships.timersOf([group._id])),
      };
    },

    async promoteMember(request: PromoteMemberRequest, context: HandlerContext) {
      const member = await changeRole(request, context, 'admin');
      return { success: true, message: 'Member is an admin', member: memberView(member) };
    },

    async demoteMember(request: DemoteMemberRequest, context: HandlerContext) {
      const member = await changeRole(request, context, 'member');
      return { success: true, message: 'Admin is a member', member: memberView(member) };
    },

    async removeMember(request: RemoveMemberRequest, context: HandlerContext) {
      const { caller, member: actor } = await callerIn(request.groupId, context);
      if (!isWalletAddress(request.address))
        throw invalidArgument('address must be a wallet address (0x + 40 hex digits)');
      if (request.address.toLowerCase() === caller)
        throw invalidArgument('To leave a group, use leave');
      if (actor.role === 'member') throw permissionDenied('Plain members cannot remove members');
      const target = await memberNamed(request.groupId, request.address);
      if (!mayRemove(actor.role, target.role))
        throw permissionDenied('Admins can remove plain members only');
      const outcome = await memberships.depart(
        request.groupId,
        target.address,
        'member_removed',
        caller,
      );
      return {
        success: true,
        message: 'Member removed',
        address: target.address,
        memberCount: outcome.memberCount,
      };
    },
  };
}
