/**
 * A story as stored: the owner, its encrypted content (or the media item it shows), its clear
 * caption, who may see it and when it disappears. The TTL index removes it at `expiresAt`;
 * until the TTL monitor runs, every read filters on `expiresAt` too.
 */
import type { Binary } from 'bson';
import type { IndexSpec } from '../platform/store/document-store.js';

export const STORY_AUDIENCES = ['contacts', 'everyone', 'selected'] as const;
export type StoryAudience = (typeof STORY_AUDIENCES)[number];

export interface StoredStory {
  _id: string;
  ownerAddress: string;
  /** Empty for a text story. */
  mediaId: string;
  ciphertext: Binary;
  caption: string;
  audience: StoryAudience;
  /** The allowed viewers of a `selected` story (lowercase); empty otherwise. */
  audienceAddresses: string[];
  createdAt: Date;
  expiresAt: Date;
}

export const STORIES = 'stories';

export const storyIndexes: IndexSpec[] = [
  { collection: STORIES, name: 'owner_created', key: { ownerAddress: 1, createdAt: -1 } },
  // The listing's clauses: `everyone` stories, and `selected` stories naming the caller.
  { collection: STORIES, name: 'audience_created', key: { audience: 1, createdAt: -1 } },
  { collection: STORIES, name: 'selected_viewers', key: { audienceAddresses: 1 } },
  { collection: STORIES, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];
