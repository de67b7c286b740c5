/** A stored story as the API shows it to one caller (stories.proto `Story`): the owner sees its audience and count. */
import type { StoredStory } from './story.js';

export interface CallerFacts {
  /** Whether the caller viewed it (always true for its own). */
  readonly viewed: boolean;
  /** Distinct viewers: reported to the owner only. */
  readonly viewCount: number;
}

export function storyView(story: StoredStory, caller: string, facts: CallerFacts) {
  const own = story.ownerAddress === caller;
  return {
    id: story._id,
    ownerAddress: story.ownerAddress,
    mediaId: story.mediaId,
    ciphertext: new Uint8Array(story.ciphertext.buffer),
    caption: story.caption,
    createdAt: story.createdAt.toISOString(),
    expiresAt: story.expiresAt.toISOString(),
    viewCount: own ? facts.viewCount : 0,
    viewed: own || facts.viewed,
    audience: own ? story.audience : '',
  };
}

export type StoryJson = ReturnType<typeof storyView>;

/** A page's stories grouped by owner: owners in the order of their newest story, each one's stories in page order. */
export function byAuthor(stories: readonly StoryJson[]) {
  const authors = new Map<string, StoryJson[]>();
  for (const story of stories)
    authors.set(story.ownerAddress, [...(authors.get(story.ownerAddress) ?? []), story]);
  return [...authors].map(([ownerAddress, owned]) => ({ ownerAddress, stories: owned }));
}
