/**
 * The parts of a user's public profile kept by this area, keyed by the wallet address. The
 * username and the display name live on identity's account record (sign-in sets them and the
 * chat list reads them); the presence status is the presence area's.
 */
export interface ProfileRecord {
  _id: string;
  bio: string;
  /** The media id of an upload of kind `avatar`; empty when none. */
  avatarMediaId: string;
  updatedAt: Date;
}

export const PROFILES = 'profiles';

/** The profile field limits of profile.proto, in characters (code points). */
export const PROFILE_LIMITS = { displayName: 64, bio: 280 } as const;
