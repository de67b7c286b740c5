/**
 * Who may see a story, as the media access rule asks it for a story's media: the stories area
 * answers it (an unexpired story whose audience includes the address), bound by the app once
 * stories exist (`LateBound`), as channels' readers are.
 */
export interface StoryAudience {
  maySee(storyId: string, address: string): Promise<boolean>;
}
