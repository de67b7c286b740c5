/**
 * What users share in conversations and channels: polls, stickers and stories; then the media
 * service, whose download rule asks channels and stories who may read their media; then the
 * moderation service, whose reports find their messages through messaging.
 */
import type { IdentityAreas } from './identity-wiring.js';
import { createMediaArea } from '../media/media-area.js';
import { createPollsArea } from '../polls/polls-area.js';
import { createStickersArea } from '../stickers/stickers-area.js';
import { createStoriesArea } from '../stories/stories-area.js';
import { createModerationArea } from '../moderation/moderation-area.js';
import type { ApiAreaPorts } from './api-area-ports.js';
import type { ConversationAreas } from './conversation-areas.js';
import type { FoundationAreas } from './foundation-areas.js';

export async function buildContentAreas(
  ports: ApiAreaPorts,
  { accounts, identity }: IdentityAreas,
  foundation: FoundationAreas,
  { channels, messaging, moderationAdmission }: ConversationAreas,
) {
  const { config, store, events } = ports;
  const { contacts, conversations, mediaLibrary } = foundation;
  const polls = await createPollsArea({
    store,
    channels: channels.access,
    sends: messaging.pollSends,
    groups: conversations,
    events,
    channelEvents: ports.channelPosts,
    logger: ports.logger,
  });
  // The sticker catalog is checked at start.
  const stickers = await createStickersArea({
    settings: config.stickers,
    sender: messaging.sender,
  });
  const stories = await createStoriesArea({
    settings: config.stories,
    store,
    conversations,
    blocks: contacts.blocks,
    events,
    media: mediaLibrary.held,
  });
  // Channels and stories hold media (the library, built before them) and answer who may read
  // it: the media service, with its download rule, is built once they exist.
  const media = createMediaArea({
    settings: config.media,
    library: mediaLibrary,
    conversations,
    channelReaders: channels.access,
    storyAudience: stories.stories,
    metrics: ports.mediaMetrics,
  });
  const moderation = await createModerationArea({
    store,
    admission: moderationAdmission,
    targets: messaging.targets,
    accounts: accounts.accounts,
    suspensions: accounts.suspensions,
    sessions: identity.sessions,
    audit: identity.audit,
    captchaConfigured: config.captcha.provider !== 'off',
  });
  return { polls, stickers, stories, media, moderation };
}

export type ContentAreas = Awaited<ReturnType<typeof buildContentAreas>>;
