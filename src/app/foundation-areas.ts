/**
 * What the conversation areas build on, after identity: contacts (blocks, verifications,
 * discovery), the conversation model, presence, and the media library (uploaded items and
 * what other areas hold of them).
 */
import { createContactsArea } from '../contacts/contacts-area.js';
import type { AreaEvents } from '../events/area-events.js';
import type { IdentityAreas } from './identity-wiring.js';
import { createMediaLibrary } from '../media/media-area.js';
import { Conversations } from '../messaging/conversations/conversations.js';
import { createPresenceArea } from '../presence/presence-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';

export async function buildFoundationAreas(
  ports: ApiAreaPorts,
  { accounts, phone }: IdentityAreas,
  areaEvents: AreaEvents,
) {
  const { config, store } = ports;
  const contacts = await createContactsArea({
    store,
    blockMirror: ports.blockMirror,
    // Location reacts to a block, but needs contacts' block list itself: an event, not a part.
    blockListener: {
      blocked: (blocker, blocked) => areaEvents.blockMade.announce({ blocker, blocked }),
    },
    accounts: accounts.accounts,
    phoneAccounts: phone.phoneAccounts,
    sharedState: ports.sharedState,
    settings: config.discovery,
  });
  // The conversation model is shared: messaging writes it, presence reads who chats with whom
  // (and the groups and channels areas write their members' records).
  const conversations = new Conversations(store, accounts.accounts);
  const presence = createPresenceArea({
    store,
    conversations,
    blocks: contacts.blocks,
    events: ports.events,
  });
  // Media's library before the areas that hold media; its service (who may download) comes
  // after channels and stories, which answer that (content-areas.ts).
  const mediaLibrary = await createMediaLibrary({
    settings: config.media,
    store,
    blobStorage: { mongodbUrl: config.store.mongodbUrl, dataDir: config.store.dataDir },
    metrics: ports.mediaMetrics,
    logger: ports.logger,
  });
  return { contacts, conversations, presence, mediaLibrary };
}

export type FoundationAreas = Awaited<ReturnType<typeof buildFoundationAreas>>;
