/** StoriesService (stories.proto): posting, listing, viewing, viewers and deletion of stories. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  CreateStoryRequest,
  DeleteStoryRequest,
  ListStoriesRequest,
  ListStoryViewsRequest,
  ViewStoryRequest,
} from '../gen/service/v1/stories_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { isWalletAddress } from '../accounts/wallet-address.js';
import { MAX_CIPHERTEXT_BYTES } from '../messaging/messages/message-sender.js';
import { decodeCursor, pageSize } from '../platform/api/page-cursor.js';
import type { StorySettings } from '../platform/config/settings.js';
import { invalidArgument } from '../platform/errors/api-error.js';
import type { NewStory, Stories } from './stories.js';
import { STORY_AUDIENCES } from './story.js';
import type { StoredStory, StoryAudience } from './story.js';
import { byAuthor, storyView } from './story-view.js';

/** CreateStory's bounds (stories.proto). */
const LIMITS = { captionChars: 500, maxTtlSeconds: 86_400, selectedAddresses: 500 } as const;
const STORY_ID = /^[A-Za-z0-9_-]{1,64}$/;
const MEDIA_ID = /^[A-Za-z0-9_-]{1,64}$/;

export interface StoriesServiceDependencies {
  readonly stories: Stories;
  readonly settings: StorySettings;
}

export function createStoriesService({ stories, settings }: StoriesServiceDependencies) {
  const storyId = (id: string) => {
    if (!STORY_ID.test(id)) throw invalidArgument('story_id is not a story id');
    return id;
  };

  /** The caller's facts about each story: viewed (others'), view counts (its own). */
  const views = async (caller: string, page: StoredStory[]) => {
    const viewed = await stories.viewers.viewedBy(
      caller,
      page.filter((story) => story.ownerAddress !== caller).map((story) => story._id),
    );
    return Promise.all(
      page.map(async (story) =>
        storyView(story, caller, {
          viewed: viewed.has(story._id),
          viewCount: story.ownerAddress === caller ? await stories.viewers.count(story._id) : 0,
        }),
      ),
    );
  };

  const newStory = (request: CreateStoryRequest): NewStory => {
    if (request.mediaId === '' && request.ciphertext.length === 0)
      throw invalidArgument('A story needs media_id or ciphertext');
    if (request.mediaId !== '' && !MEDIA_ID.test(request.mediaId))
      throw invalidArgument('media_id is not a media id');
    if (request.ciphertext.length > MAX_CIPHERTEXT_BYTES)
      throw invalidArgument(`ciphertext must have at most ${MAX_CIPHERTEXT_BYTES} bytes`);
    if ([...request.caption].length > LIMITS.captionChars)
      throw invalidArgument(`caption must have at most ${LIMITS.captionChars} characters`);
    const ttlSeconds = request.ttlSeconds === 0 ? LIMITS.maxTtlSeconds : request.ttlSeconds;
    if (ttlSeconds < settings.minTtlSeconds || ttlSeconds > LIMITS.maxTtlSeconds) {
      throw invalidArgument(
        `ttl_seconds must be between ${settings.minTtlSeconds} and ${LIMITS.maxTtlSeconds} (0 for ${LIMITS.maxTtlSeconds})`,
      );
    }
    const audience = (request.audience === '' ? 'contacts' : request.audience) as StoryAudience;
    if (!STORY_AUDIENCES.includes(audience))
      throw invalidArgument(`audience must be one of ${STORY_AUDIENCES.join(', ')}`);
    const addresses = request.audienceAddresses;
    if (audience !== 'selected' && addresses.length > 0)
      throw invalidArgument('audience_addresses is only for the selected audience');
    if (
      audience === 'selected' &&
      (addresses.length === 0 || addresses.length > LIMITS.selectedAddresses)
    ) {
      throw invalidArgument(
        `audience selected needs 1 to ${LIMITS.selectedAddresses} audience_addresses`,
      );
    }
    if (!addresses.every(isWalletAddress))
      throw invalidArgument('every audience address must be a wallet address (0x + 40 hex digits)');
    const audienceAddresses = [...new Set(addresses.map((address) => address.toLowerCase()))];
    return {
      mediaId: request.mediaId,
      ciphertext: request.ciphertext,
      caption: request.caption,
      ttlSeconds,
      audience,
      audienceAddresses,
    };
  };

  return {
    async createStory(request: CreateStoryRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const story = await stories.create(caller, newStory(request));
      return {
        success: true,
        message: 'Story posted',
        story: storyView(story, caller, { viewed: true, viewCount: 0 }),
      };
    },

    async listStories(request: ListStoriesRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (request.ownerAddress !== '' && !isWalletAddress(request.ownerAddress))
        throw invalidArgument('owner_address must be a wallet address (0x + 40 hex digits)');
      const owner = request.ownerAddress === '' ? undefined : request.ownerAddress.toLowerCase();
      const page = await stories.list(
        caller,
        owner,
        pageSize(request.pageSize),
        decodeCursor(request.cursor),
      );
      const shown = await views(caller, page.stories);
      return {
        success: true,
        message: `${shown.length} stories`,
        stories: shown,
        authors: byAuthor(shown),
        nextCursor: page.nextCursor,
      };
    },

    async viewStory(request: ViewStoryRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const story = await stories.visible(storyId(request.storyId), caller);
      const first = await stories.view(story, caller);
      const message =
        story.ownerAddress === caller
          ? 'Your own story'
          : first
            ? 'Story viewed'
            : 'Story already viewed';
      return { success: true, message };
    },

    async listStoryViews(request: ListStoryViewsRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      const story = await stories.owned(storyId(request.storyId), caller);
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      const [page, viewCount] = await Promise.all([
        stories.viewers.page(story._id, limit, after),
        stories.viewers.count(story._id),
      ]);
      const shown = page.items.map((view) => ({
        viewerAddress: view.viewerAddress,
        viewedAt: view.viewedAt.toISOString(),
      }));
      return {
        success: true,
        message: `${viewCount} viewers`,
        views: shown,
        viewCount,
        nextCursor: page.nextCursor,
      };
    },

    async deleteStory(request: DeleteStoryRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      await stories.delete(await stories.owned(storyId(request.storyId), caller));
      return { success: true, message: 'Story deleted' };
    },
  };
}
