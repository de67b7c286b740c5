/**
 * The location area of an api process: live location-sharing sessions (location.proto), their
 * expiry sweeper (a background task), and the account-data owner. A block ends the sessions
 * between the two users: the area subscribes to `blockMade` (announced by contacts).
 * Conversations (who is in a group), blocks and the event publisher are the app's, shared with
 * the other areas.
 */
import type { BlockList } from '../contacts/block-list.js';
import type { BlockMade } from '../events/area-events.js';
import type { EventSubscriptions } from '../events/in-process-event.js';
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { LocationSettings } from '../platform/config/settings.js';
import { DependencyUnavailableError } from '../platform/errors/dependency-unavailable.js';
import type { Logger } from '../platform/logging/logger.js';
import type { OutageLog } from '../platform/logging/outage-log.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import type { MessagingEvents } from '../events/messaging-events.js';
import { expirySweeper } from './expiry-sweeper.js';
import { locationAccountData } from './location-account-data.js';
import type { LocationMetrics } from './location-metrics.js';
import { locationSessionIndexes } from './location-session.js';
import { LocationSessions } from './location-sessions.js';
import { createLocationService } from './location-service.js';
import { LocationSharing } from './location-sharing.js';

export interface LocationDependencies {
  readonly settings: LocationSettings;
  readonly store: DocumentStore;
  readonly conversations: Conversations;
  readonly blocks: BlockList;
  /** Blocks once durable, to end the sessions between the two users. */
  readonly blockMade: EventSubscriptions<BlockMade>;
  readonly events: MessagingEvents;
  readonly metrics: LocationMetrics;
  readonly logger: Logger;
  readonly outages: OutageLog;
}

/** Every index of the location area (created at start, and by the ensure-indexes command before a rollout). */
export const locationIndexes: IndexSpec[] = [...locationSessionIndexes];

export async function createLocationArea(deps: LocationDependencies) {
  const { store, conversations, logger, outages } = deps;
  await store.ensureIndexes(locationIndexes);
  const sharing = new LocationSharing(
    new LocationSessions(store),
    conversations,
    deps.blocks,
    deps.events,
    deps.metrics,
  );
  // The block is durable whatever happens here, and every relay leaves out blocked users, so a
  // session this fails to end still shows nothing to either of them.
  deps.blockMade.subscribe(({ blocker, blocked }) =>
    sharing.endBetween(blocker, blocked).catch((error: unknown) => {
      if (error instanceof DependencyUnavailableError) outages.report(error);
      else
        logger.warn(
          { err: error },
          'location sessions not ended at a block; their next update ends them',
        );
    }),
  );
  return {
    service: createLocationService({ sharing, conversations, settings: deps.settings }),
    expirySweeper: expirySweeper(sharing, logger, outages),
    accountData: locationAccountData(sharing),
  };
}

export type LocationArea = Awaited<ReturnType<typeof createLocationArea>>;
