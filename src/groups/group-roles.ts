/**
 * The role table of groups.proto: who may do what to whom. Pure rules; the callers load the
 * roles and turn a refusal into `403 FORBIDDEN`.
 */
export type GroupRole = 'owner' | 'admin' | 'member';

/** Promote and demote: the owner only (refused before the target is even looked at). */
export const mayChangeRoles = (actor: GroupRole) => actor === 'owner';

/** The owner's role never changes: ownership passes only when the owner leaves. */
export const roleCanChange = (target: GroupRole) => target !== 'owner';

/** Remove: the owner removes anyone else; an admin removes plain members only. */
export const mayRemove = (actor: GroupRole, target: GroupRole) =>
  actor === 'owner' ? target !== 'owner' : actor === 'admin' && target === 'member';

/** Create or revoke invites, rename the group: the owner and admins. */
export const mayManage = (actor: GroupRole) => actor === 'owner' || actor === 'admin';
