/**
 * The profile RPCs of ProfileService (profile.proto): UpdateUsername and UpdateProfile. The
 * presence area serves UpdateStatus; the app maps both onto the one service.
 */
import type { HandlerContext } from '@connectrpc/connect';
import type { UpdateProfileRequest, UpdateUsernameRequest } from '../gen/service/v1/profile_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { USERNAME_MAX_INPUT } from '../accounts/username.js';
import type { Usernames } from '../accounts/usernames.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import type { ProfileAvatars } from './profile-avatars.js';
import { PROFILE_LIMITS } from './profile-record.js';
import type { ProfileChanges, Profiles } from './profiles.js';
import type { PublicProfile, PublicProfiles } from './public-profiles.js';

/** Media ids are opaque, but never longer than this. */
const MAX_MEDIA_ID = 64;
// Control characters: none in a display name (one line), only line breaks and tabs in a bio.
const CONTROL = /\p{Cc}/u;
const CONTROL_BUT_LINE_BREAKS = /[^\P{Cc}\n\r\t]/u;

export interface ProfileServiceDependencies {
  readonly usernames: Usernames;
  readonly profiles: Profiles;
  readonly publicProfiles: PublicProfiles;
  /** Media's avatars: checks the upload and serves it as the public avatar. */
  readonly avatars: ProfileAvatars;
}

export function createProfileService(deps: ProfileServiceDependencies) {
  const { usernames, profiles, publicProfiles } = deps;

  /** The caller's profile as others see it, announced to its contacts. */
  const announced = async (address: string): Promise<PublicProfile> => {
    const profile = await publicProfiles.seenBy(address, address);
    await profiles.announce(address, {
      address,
      username: profile.username,
      display_name: profile.displayName,
      bio: profile.bio,
      avatar_media_id: profile.avatarMediaId,
      updated_at: new Date().toISOString(),
    });
    return profile;
  };

  const checkedChanges = async (
    caller: string,
    request: UpdateProfileRequest,
  ): Promise<ProfileChanges> => {
    const changes: { displayName?: string; bio?: string; avatarMediaId?: string } = {};
    if (request.displayName !== undefined) {
      const displayName = request.displayName.trim();
      if ([...displayName].length > PROFILE_LIMITS.displayName)
        throw invalidArgument(`display_name has at most ${PROFILE_LIMITS.displayName} characters`);
      if (CONTROL.test(displayName))
        throw invalidArgument('display_name is one line without control characters');
      changes.displayName = displayName;
    }
    if (request.bio !== undefined) {
      if ([...request.bio].length > PROFILE_LIMITS.bio)
        throw invalidArgument(`bio has at most ${PROFILE_LIMITS.bio} characters`);
      if (CONTROL_BUT_LINE_BREAKS.test(request.bio))
        throw invalidArgument('bio has no control characters other than line breaks and tabs');
      changes.bio = request.bio;
    }
    if (request.avatarMediaId !== undefined) {
      const mediaId = request.avatarMediaId;
      if (mediaId.length > MAX_MEDIA_ID)
        throw invalidArgument(`avatar_media_id has at most ${MAX_MEDIA_ID} characters`);
      if (mediaId === '') await deps.avatars.remove(caller);
      else await deps.avatars.set(caller, mediaId);
      changes.avatarMediaId = mediaId;
    }
    return changes;
  };

  return {
    async updateUsername(request: UpdateUsernameRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (request.username.length > USERNAME_MAX_INPUT)
        throw invalidArgument(`username has at most ${USERNAME_MAX_INPUT} characters`);
      const change = await usernames.change(caller, request.username);
      const profile = change.changed
        ? await announced(caller)
        : await publicProfiles.seenBy(caller, caller);
      return {
        success: true,
        message: change.changed ? 'Username changed' : 'Username unchanged',
        username: change.username,
        profile,
      };
    },

    async updateProfile(request: UpdateProfileRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const changes = await checkedChanges(caller, request);
      if (Object.keys(changes).length === 0)
        return {
          success: true,
          message: 'Nothing to change',
          profile: await publicProfiles.seenBy(caller, caller),
        };
      await profiles.update(caller, changes);
      return { success: true, message: 'Profile updated', profile: await announced(caller) };
    },
  };
}
