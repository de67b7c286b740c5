/**
 * Who may see a story. The owner always; never a user the owner blocked or who blocked the
 * owner; otherwise by the story's audience: `everyone`, the `selected` addresses, or for
 * `contacts` the users the owner has a direct chat with (stories.proto).
 */
import type { BlockList } from '../contacts/block-list.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { StoreFilter } from '../platform/store/document-store.js';
import type { StoredStory } from './story.js';

/** The listing looks for `contacts` stories among the owners of this many of the caller's most recent chats. */
const MAX_CONTACT_CHATS = 1000;

export class StoryAudiences {
  constructor(
    private readonly conversations: Conversations,
    private readonly blocks: BlockList,
  ) {}

  async maySee(story: StoredStory, viewer: string): Promise<boolean> {
    const owner = story.ownerAddress;
    if (owner === viewer) return true;
    if (
      (await this.blocks.isBlocked(owner, viewer)) ||
      (await this.blocks.isBlocked(viewer, owner))
    )
      return false;
    if (story.audience === 'everyone') return true;
    if (story.audience === 'selected') return story.audienceAddresses.includes(viewer);
    // The viewer's side of the chat, as `visibleTo` reads it.
    return this.conversations.hasDirectChat(viewer, owner);
  }

  /**
   * The stories `viewer` may see by their audience (blocks are checked on the found stories,
   * `withoutBlocked`): its own, `everyone`'s, those that select it, and `contacts` stories of its
   * direct-chat partners.
   */
  async visibleTo(viewer: string): Promise<StoreFilter<StoredStory>> {
    const partners = await this.conversations.directPeersOf(viewer, MAX_CONTACT_CHATS);
    return {
      $or: [
        { ownerAddress: viewer },
        { audience: 'everyone' },
        { audience: 'selected', audienceAddresses: viewer },
        { audience: 'contacts', ownerAddress: { $in: partners } },
      ],
    };
  }

  /** The stories whose owner and `viewer` have not blocked each other. */
  async withoutBlocked(viewer: string, stories: StoredStory[]): Promise<StoredStory[]> {
    const owners = [...new Set(stories.map((story) => story.ownerAddress))].filter(
      (owner) => owner !== viewer,
    );
    const [blocked, blockers] = await Promise.all([
      this.blocks.blockedAmong(viewer, owners),
      this.blocks.blockersAmong(viewer, owners),
    ]);
    return stories.filter(
      (story) => !blocked.has(story.ownerAddress) && !blockers.has(story.ownerAddress),
    );
  }
}
