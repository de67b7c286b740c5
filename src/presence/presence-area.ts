/**
 * The presence area of an api process: users' chosen status, stored and pushed to the people
 * they chat with. Conversations (messaging), blocks (contacts) and the event publisher are the
 * app's, shared with the other areas.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { AccountDataOwner } from '../platform/account-data/account-data-owner.js';
import type { DocumentStore } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { ContactsAudience } from './contacts-audience.js';
import { Presence } from './presence.js';
import { createPresenceService } from './presence-service.js';

export interface PresenceDependencies {
  readonly store: DocumentStore;
  readonly conversations: Conversations;
  readonly blocks: BlockList;
  readonly events: MessagingEvents;
}

export function createPresenceArea({ store, conversations, blocks, events }: PresenceDependencies) {
  const audience = new ContactsAudience(conversations, blocks);
  const presence = new Presence(store, audience, blocks, events);
  const accountData: AccountDataOwner = {
    // A move keeps the chosen status under the new address; a deletion removes it.
    name: 'presence',
    moveAccount: (from, to) => presence.moveRecord(from, to),
    deleteAccount: (address) => presence.removeRecord(address),
  };
  return { presence, audience, accountData, service: createPresenceService(presence) };
}

export type PresenceArea = ReturnType<typeof createPresenceArea>;
