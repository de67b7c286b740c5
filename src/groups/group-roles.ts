/**
 * The role table of groups.proto: who may do what to whom. Pure rules; the callers load the
 * roles and turn a refusal into `403 FORBIDDEN`.
 */
export type GroupRole = 'owner' | 'admin' | 'member';

/** Promote and demote: the owner only, and never the owner itself. */
export const mayChangeRole = (actor: GroupRole, target: GroupRole) => actor === 'owner' && target !== 'owner';

/** Remove: the owner removes anyone else; an admin removes plain members only. */
export const mayRemove = (actor: GroupRole, target: GroupRole) => (actor === 'owner' ? target !== 'owner' : actor === 'admin' && target === 'member');

/** Create or revoke invites, rename the group: the owner and admins. */
export const mayManage = (actor: GroupRole) => actor === 'owner' || actor === 'admin';
