/**
 * The areas where users talk, over the foundation: profiles, channels, messaging (direct
 * chats, and channels in its routes), live location and groups; before them the moderation
 * area's admission of sends, which messaging and channels consult on every send.
 */
import { createChannelsArea } from '../channels/channels-area.js';
import type { AreaEvents } from '../events/area-events.js';
import { createGroupsArea } from '../groups/groups-area.js';
import type { IdentityAreas } from './identity-wiring.js';
import { createLocationArea } from '../location/location-area.js';
import { createMessagingArea } from '../messaging/messaging-area.js';
import { createModerationAdmission } from '../moderation/moderation-area.js';
import { createProfileArea } from '../profile/profile-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';
import type { FoundationAreas } from './foundation-areas.js';
import { createPollSends } from '../polls/polls-area.js';

type Accounts = IdentityAreas['accounts']['accounts'];

export async function buildConversationAreas(
  ports: ApiAreaPorts,
  identityAreas: IdentityAreas,
  { contacts, conversations, presence, mediaLibrary }: FoundationAreas,
  areaEvents: AreaEvents,
) {
  const { config, store, logger, events } = ports;
  const { accounts, usernames } = identityAreas.accounts;
  // Moderation in two steps (moderation-area.ts): what every send asks it now, its service
  // (which reads messages) after messaging (content-areas.ts).
  const moderationAdmission = await admissionOfSends(ports, accounts);
  const profile = createProfileArea({
    store,
    accounts,
    usernames,
    blocks: contacts.blocks,
    statuses: presence.presence,
    audience: presence.audience,
    events,
    avatars: mediaLibrary.avatars,
  });
  // Channels before messaging, which carries them in its routes (send, history, chats).
  const channels = await createChannelsArea({
    settings: config.channels,
    store,
    accounts,
    media: mediaLibrary.held,
    posts: ports.channelPosts,
    follows: ports.channelFollows,
    wakeUps: ports.wakeUps,
    admission: moderationAdmission.admission,
    logger,
    outages: ports.outages,
  });
  const messaging = await createMessagingArea({
    settings: config.messaging,
    store,
    conversations,
    channels: channels.conversations,
    pollSends: pollSendsWith(store, accounts, channels, conversations),
    media: mediaLibrary.attachments,
    viewedMediaGraceMs: config.media.viewedGraceMs,
    accounts,
    blocks: contacts.blocks,
    verifications: contacts.verifications,
    profiles: profile.publicProfiles,
    events,
    wakeUps: ports.wakeUps,
    admission: moderationAdmission.admission,
    logger,
  });
  const location = await createLocationArea({
    settings: config.location,
    store,
    conversations,
    blocks: contacts.blocks,
    blockMade: areaEvents.blockMade,
    events,
    metrics: ports.locationMetrics,
    logger,
    outages: ports.outages,
  });
  const groups = await createGroupsArea({
    settings: config.groups,
    store,
    conversations,
    sender: messaging.sender,
    avatars: mediaLibrary.held,
    messageMedia: mediaLibrary.attachments,
    blocks: contacts.blocks,
    logger,
    outages: ports.outages,
  });
  return { profile, channels, messaging, location, groups, moderationAdmission };
}

/** What every send asks moderation first (franking, suspension, the stranger limit). */
function admissionOfSends(ports: ApiAreaPorts, accounts: Accounts) {
  const { config } = ports;
  return createModerationAdmission({
    settings: config.moderation,
    limitsEnabled: config.limits.enabled,
    dataDir: config.store.dataDir,
    sharedState: ports.sharedState,
    accounts,
  });
}

/**
 * Messaging's send route places polls (`poll_id`), and polls are sent through messaging's
 * sender: the polls' sending part is built by messaging, with its sender.
 */
function pollSendsWith(
  store: ApiAreaPorts['store'],
  accounts: Accounts,
  channels: Awaited<ReturnType<typeof createChannelsArea>>,
  conversations: FoundationAreas['conversations'],
) {
  return (sender: Parameters<typeof createPollSends>[0]['messages']) =>
    createPollSends({
      store,
      accounts,
      channels: channels.access,
      channelPosts: channels.pollPosts,
      groups: conversations,
      messages: sender,
    });
}

export type ConversationAreas = Awaited<ReturnType<typeof buildConversationAreas>>;
