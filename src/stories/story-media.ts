/**
 * The port to the media area for stories that show an uploaded item. Declared here because
 * media depends on nothing of stories; the app passes media's implementation (`HeldMedia`).
 */
export interface AttachedMedia {
  readonly contentType: string;
  readonly size: number;
}

export interface StoryMedia {
  /**
   * Checks that `owner` uploaded `mediaId` with a kind a story may show, and references it from
   * the story until `expiresAt` (media deletes the blob when the reference expires or is
   * released). Throws the API error to answer (404 unknown or not the owner's, 400 wrong kind).
   */
  attachToStory(
    owner: string,
    mediaId: string,
    storyId: string,
    expiresAt: Date,
  ): Promise<AttachedMedia>;
  /** Drops the story's reference (a deletion before expiry); idempotent. */
  releaseStory(mediaId: string, storyId: string): Promise<void>;
}
