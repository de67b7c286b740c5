/**
 * Who viewed which story: one record per (story, viewer), so a view is counted once however
 * often it is repeated, on any pod. A record expires with its story (TTL on the story's
 * `expiresAt`) and goes with it when the owner deletes it.
 */
import type { CursorPosition } from '../platform/api/page-cursor.js';
import type { Collection, DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { DuplicateKeyError } from '../platform/store/document-store.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { NewestFirstPage } from '../platform/store/newest-first-page.js';
import { rekeyDocuments } from '../platform/store/rekey-documents.js';
import type { StoredStory } from './story.js';

export interface StoredStoryView {
  /** `<story id>|<viewer>`: the once-per-viewer rule is the primary key. */
  _id: string;
  storyId: string;
  ownerAddress: string;
  viewerAddress: string;
  viewedAt: Date;
  expiresAt: Date;
}

export const STORY_VIEWS = 'story_views';

export const storyViewIndexes: IndexSpec[] = [
  { collection: STORY_VIEWS, name: 'story_viewed', key: { storyId: 1, viewedAt: -1 } },
  { collection: STORY_VIEWS, name: 'viewer', key: { viewerAddress: 1 } },
  { collection: STORY_VIEWS, name: 'owner', key: { ownerAddress: 1 } },
  { collection: STORY_VIEWS, name: 'expiry', key: { expiresAt: 1 }, expireAfterSeconds: 0 },
];

const viewId = (storyId: string, viewer: string) => `${storyId}|${viewer}`;

export class StoryViewers {
  private readonly views: Collection<StoredStoryView>;

  constructor(store: DocumentStore) {
    this.views = store.collection<StoredStoryView>(STORY_VIEWS);
  }

  /** Records the first view; answers the view (the first one's time when it was a repeat) and whether it was new. */
  async record(
    story: StoredStory,
    viewer: string,
  ): Promise<{ view: StoredStoryView; first: boolean }> {
    const view = {
      _id: viewId(story._id, viewer),
      storyId: story._id,
      ownerAddress: story.ownerAddress,
      viewerAddress: viewer,
      viewedAt: new Date(),
      expiresAt: story.expiresAt,
    };
    try {
      await this.views.insertOne(view);
      return { view, first: true };
    } catch (error) {
      if (!(error instanceof DuplicateKeyError)) throw error;
      return { view: (await this.views.findOne({ _id: view._id })) ?? view, first: false };
    }
  }

  count(storyId: string): Promise<number> {
    return this.views.countDocuments({ storyId });
  }

  /** Of these stories, the ids of those `viewer` has viewed. */
  async viewedBy(viewer: string, storyIds: readonly string[]): Promise<Set<string>> {
    if (storyIds.length === 0) return new Set();
    const found = await this.views.find(
      { _id: { $in: storyIds.map((id) => viewId(id, viewer)) } },
      { projection: { storyId: 1 } },
    );
    return new Set(found.map((view) => view.storyId));
  }

  page(
    storyId: string,
    limit: number,
    after: CursorPosition | undefined,
  ): Promise<NewestFirstPage<StoredStoryView>> {
    return newestFirstPage(this.views, { storyId }, 'viewedAt', limit, after);
  }

  async removeOf(storyId: string): Promise<void> {
    await this.views.deleteMany({ storyId });
  }

  /**
   * Re-keys the views made by `from` (where `to` had viewed the same story, its view is kept)
   * and moves the views of `from`'s stories to `to`.
   */
  async moveAll(from: string, to: string): Promise<void> {
    await rekeyDocuments(this.views, { viewerAddress: from }, (view) => ({
      ...view,
      _id: viewId(view.storyId, to),
      viewerAddress: to,
    }));
    await this.views.updateMany({ ownerAddress: from }, { $set: { ownerAddress: to } });
    // `to` may have viewed a story of `from`: an owner's own views are not counted.
    await this.views.deleteMany({ viewerAddress: to, ownerAddress: to });
  }

  /** Removes the views made by the account and those of its stories. */
  async removeAll(address: string): Promise<void> {
    await this.views.deleteMany({ viewerAddress: address });
    await this.views.deleteMany({ ownerAddress: address });
  }
}
