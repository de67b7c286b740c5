/**
 * Who hears about a user's own changes (status, profile): the people with whom the user has a
 * direct chat or shares a group, among its most recently active conversations, except those
 * the user has blocked.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { Conversations } from '../messaging/conversations/conversations.js';

/** A change reaches at most this many of the most recently active conversations' members. */
const MAX_AUDIENCE_CONVERSATIONS = 500;

export class ContactsAudience {
  constructor(
    private readonly conversations: Conversations,
    private readonly blocks: BlockList,
  ) {}

  async of(address: string): Promise<string[]> {
    const peers = await this.conversations.peersOf(address, MAX_AUDIENCE_CONVERSATIONS);
    const blocked = await this.blocks.blockedAmong(address, [...peers]);
    return [...peers].filter((peer) => !blocked.has(peer));
  }
}
