/**
 * The avatar images, as the media area provides them: `set` checks that `mediaId` is an upload
 * of kind `avatar` by `owner` and makes it the owner's avatar, answering its public URL, or
 * throws the ApiError that profile.proto lists (400 wrong kind, 404 unknown or not the
 * owner's); `remove` ends the owner's avatar (the route stops serving it, the sweeper deletes
 * it). Declared here because the profile area only needs this much of media.
 */
export interface ProfileAvatars {
  set(owner: string, mediaId: string): Promise<string>;
  remove(owner: string): Promise<void>;
}
