/**
 * Who may do what in a channel (the table in channels.proto). Anyone may read a public
 * channel and subscribe to any channel whose id they know; the rest depends on the role.
 */
import type { ChannelRole } from './channel-members.js';

export type ChannelAction = 'publish' | 'edit' | 'manage_admins' | 'delete';

const ALLOWED: Record<ChannelAction, readonly ChannelRole[]> = {
  publish: ['owner', 'admin'],
  edit: ['owner', 'admin'],
  manage_admins: ['owner'],
  delete: ['owner'],
};

export const mayDo = (role: ChannelRole | undefined, action: ChannelAction): boolean =>
  role !== undefined && ALLOWED[action].includes(role);

/** The most admins a channel has besides its owner. */
export const MAX_ADMINS = 20;
