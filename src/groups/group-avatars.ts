/**
 * A group's picture, as the media area holds it (media's `HeldMedia`): the upload is referenced
 * by the group while it is the group's avatar, and released when the group ends, so the media
 * sweeper keeps it exactly that long. Group avatars are public images, like user avatars.
 */
export interface GroupAvatars {
  /** 404 unless an `avatar` upload of `owner` (400 for another kind); then held by the group. */
  holdAvatar(owner: string, mediaId: string, holder: { kind: 'group'; id: string }): Promise<void>;
  releaseAvatar(mediaId: string, holder: { kind: 'group'; id: string }): Promise<void>;
}
