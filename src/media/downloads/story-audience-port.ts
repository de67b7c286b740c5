/**
 * Who may see a story, as the media access rule asks it for a story's media: the stories area
 * answers it (an unexpired story whose audience includes the address); it is given to the
 * media service (createMediaArea), which the app builds after stories, as channels' readers are.
 */
export interface StoryAudience {
  maySee(storyId: string, address: string): Promise<boolean>;
}
