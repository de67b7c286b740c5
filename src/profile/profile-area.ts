/**
 * The profile area of an api process: usernames (identity's rules and held names), the public
 * profile (display name on the account; bio and avatar here) and how other users see it, with
 * changes announced to the user's contacts. The avatar check is media's (`ProfileAvatars`).
 */
import type { BlockList } from '../contacts/block-list.js';
import type { AccountRepository } from '../accounts/account-repository.js';
import type { Usernames } from '../accounts/usernames.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { ContactsAudience } from '../presence/contacts-audience.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { profileAccountData } from './profile-account-data.js';
import type { ProfileAvatars } from './profile-avatars.js';
import { createProfileService } from './profile-service.js';
import { Profiles } from './profiles.js';
import { PublicProfiles } from './public-profiles.js';
import type { StatusView } from './public-profiles.js';

export interface ProfileDependencies {
  readonly store: DocumentStore;
  readonly accounts: AccountRepository;
  readonly usernames: Usernames;
  readonly blocks: BlockList;
  /** The presence area's statuses and the audience of a user's own changes. */
  readonly statuses: StatusView;
  readonly audience: ContactsAudience;
  readonly events: MessagingEvents;
  /** Media's avatars (the avatar a profile shows is media's current one). */
  readonly avatars: ProfileAvatars;
}

/** Every index of the profile area (created at start, and by the ensure-indexes command before a rollout). */
export const profileIndexes: IndexSpec[] = []; // profiles are read and written by `_id` only

export function createProfileArea(deps: ProfileDependencies) {
  const { store, accounts, usernames } = deps;
  const profiles = new Profiles(store, accounts, deps.audience, deps.events);
  const publicProfiles = new PublicProfiles(accounts, profiles, deps.statuses, deps.blocks);
  return {
    publicProfiles,
    service: createProfileService({ usernames, profiles, publicProfiles, avatars: deps.avatars }),
    accountData: profileAccountData(profiles, usernames),
  };
}

export type ProfileArea = ReturnType<typeof createProfileArea>;
