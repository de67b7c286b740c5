/**
 * The stories area: stories and their views in the store (both expire by TTL), who may see
 * them (contacts' blocks, messaging's direct chats), the owner's `story.viewed` events, and the
 * media port for media stories (media's `HeldMedia`). It returns `stories` (whose `maySee` the
 * app gives the media service as its story audience) and its account data owner.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { StorySettings } from '../platform/config/settings.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { Stories } from './stories.js';
import { storiesAccountData } from './stories-account-data.js';
import { createStoriesService } from './stories-service.js';
import { storyIndexes } from './story.js';
import { StoryAudiences } from './story-audiences.js';
import type { StoryMedia } from './story-media.js';
import { StoryViewers, storyViewIndexes } from './story-viewers.js';

export interface StoriesDependencies {
  readonly settings: StorySettings;
  readonly store: DocumentStore;
  readonly conversations: Conversations;
  readonly blocks: BlockList;
  readonly events: MessagingEvents;
  readonly media: StoryMedia;
}

/** Every index of the stories area (created at start, and by the ensure-indexes command before a rollout). */
export const storiesIndexes: IndexSpec[] = [...storyIndexes, ...storyViewIndexes];

export async function createStoriesArea({
  settings,
  store,
  conversations,
  blocks,
  events,
  media,
}: StoriesDependencies) {
  await store.ensureIndexes(storiesIndexes);
  const stories = new Stories(
    store,
    new StoryAudiences(conversations, blocks),
    new StoryViewers(store),
    events,
    media,
  );
  return {
    stories,
    accountData: storiesAccountData(stories),
    service: createStoriesService({ stories, settings }),
  };
}
