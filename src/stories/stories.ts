/**
 * The stories themselves: posting, the reads that see only unexpired stories visible to the
 * caller (an unknown, expired and hidden story are one and the same 404), views and deletion.
 * The owner hears of each first view of a story over /ws as a durable `story.viewed` event, so
 * an owner offline at that moment gets it at its next catch-up.
 */
import { randomBytes } from 'node:crypto';
import { Binary } from 'bson';
import type { CursorPosition } from '../platform/api/page-cursor.js';
import { notFound, permissionDenied } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore, StoreFilter } from '../platform/store/document-store.js';
import { newestFirstPage } from '../platform/store/newest-first-page.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import type { StoryAudiences } from './story-audiences.js';
import type { StoryMedia } from './story-media.js';
import type { StoryViewers } from './story-viewers.js';
import { STORIES } from './story.js';
import type { StoredStory, StoryAudience } from './story.js';

export interface NewStory {
  readonly mediaId: string;
  readonly ciphertext: Uint8Array;
  readonly caption: string;
  readonly ttlSeconds: number;
  readonly audience: StoryAudience;
  readonly audienceAddresses: readonly string[];
}

/** Refused as not visible: whether the story is unknown, expired or hidden is not told. */
const hidden = () => notFound('No such story');

export class Stories {
  private readonly stories: Collection<StoredStory>;

  constructor(
    store: DocumentStore,
    private readonly audiences: StoryAudiences,
    readonly viewers: StoryViewers,
    private readonly events: MessagingEvents,
    /** Media's part, once the app wires it; until then media stories are refused. */
    private readonly media: StoryMedia,
  ) {
    this.stories = store.collection<StoredStory>(STORIES);
  }

  /** The media is attached first: a story never points at media it does not hold. */
  async create(owner: string, story: NewStory): Promise<StoredStory> {
    const createdAt = new Date();
    const stored: StoredStory = {
      _id: randomBytes(16).toString('base64url'),
      ownerAddress: owner,
      mediaId: story.mediaId,
      ciphertext: new Binary(story.ciphertext),
      caption: story.caption,
      audience: story.audience,
      audienceAddresses: [...story.audienceAddresses],
      createdAt,
      expiresAt: new Date(createdAt.getTime() + story.ttlSeconds * 1000),
    };
    if (story.mediaId !== '')
      await this.media.attachToStory(owner, story.mediaId, stored._id, stored.expiresAt);
    await this.stories.insertOne(stored);
    return stored;
  }

  /** Whether `viewer` may see the story now (media's access rule for a story's media). */
  async maySee(storyId: string, viewer: string): Promise<boolean> {
    return (await this.findVisible(storyId, viewer)) !== null;
  }

  /** An unexpired story `viewer` may see; 404 otherwise. */
  async visible(storyId: string, viewer: string): Promise<StoredStory> {
    const story = await this.findVisible(storyId, viewer);
    if (!story) throw hidden();
    return story;
  }

  private async findVisible(storyId: string, viewer: string): Promise<StoredStory | null> {
    const story = await this.stories.findOne({ _id: storyId, expiresAt: { $gt: new Date() } });
    return story && (await this.audiences.maySee(story, viewer)) ? story : null;
  }

  /** A visible story that `caller` owns: 403 for another's story it can see. */
  async owned(storyId: string, caller: string): Promise<StoredStory> {
    const story = await this.visible(storyId, caller);
    if (story.ownerAddress !== caller)
      throw permissionDenied('Only the owner of the story may do this');
    return story;
  }

  /** The visible stories, newest first, optionally of one owner; blocked owners' stories are left out of the page. */
  async list(
    viewer: string,
    owner: string | undefined,
    limit: number,
    after: CursorPosition | undefined,
  ) {
    const scope: StoreFilter<StoredStory> = {
      expiresAt: { $gt: new Date() },
      ...(owner === undefined ? {} : { ownerAddress: owner }),
      $and: [await this.audiences.visibleTo(viewer)],
    };
    const page = await newestFirstPage(this.stories, scope, 'createdAt', limit, after);
    return {
      stories: await this.audiences.withoutBlocked(viewer, page.items),
      nextCursor: page.nextCursor,
    };
  }

  /**
   * Records `viewer`'s view (not the owner's own) and tells the owner. The event is published
   * on every view, with the view as its dedupe key: the owner hears of it once, and a view whose
   * event was lost is announced by the viewer's next view.
   */
  async view(story: StoredStory, viewer: string): Promise<boolean> {
    if (story.ownerAddress === viewer) return false;
    const { view, first } = await this.viewers.record(story, viewer);
    const data = {
      story_id: story._id,
      viewer_address: viewer,
      viewed_at: view.viewedAt.toISOString(),
      view_count: await this.viewers.count(story._id),
    };
    await this.events.durable('story.viewed', [story.ownerAddress], data, {
      dedupeKey: `story.viewed:${view._id}`,
    });
    return first;
  }

  async delete(story: StoredStory): Promise<void> {
    await this.stories.deleteOne({ _id: story._id });
    await this.viewers.removeOf(story._id);
    if (story.mediaId !== '') await this.media.releaseStory(story.mediaId, story._id);
  }

  /** An account move: the stories of `from` become `to`'s, and so do its views. */
  async moveAll(from: string, to: string): Promise<void> {
    await this.stories.updateMany({ ownerAddress: from }, { $set: { ownerAddress: to } });
    for (;;) {
      const selecting = await this.stories.find({ audienceAddresses: from }, { limit: 100 });
      if (selecting.length === 0) break;
      for (const story of selecting) {
        const addresses = [
          ...new Set(story.audienceAddresses.map((address) => (address === from ? to : address))),
        ];
        await this.stories.updateOne(
          { _id: story._id },
          { $set: { audienceAddresses: addresses } },
        );
      }
    }
    await this.viewers.moveAll(from, to);
  }

  /** An account deletion: its stories (with their media and views) and its views of others' stories. */
  async removeAll(address: string): Promise<void> {
    for (;;) {
      const batch = await this.stories.find({ ownerAddress: address }, { limit: 100 });
      if (batch.length === 0) break;
      for (const story of batch) await this.delete(story);
    }
    await this.viewers.removeAll(address);
  }
}
