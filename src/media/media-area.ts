/**
 * The media area of an api process, built in two steps because channels and stories sit
 * between them: they hold media, and media's download rule asks them who may read.
 *
 * 1. `createMediaLibrary`: the uploaded items and their blobs (files in DATA_DIR, or GridFS
 *    with MongoDB) and what other areas do with them: `attachments` for messaging, `avatars`
 *    for profile updates, `held` for groups' and channels' avatars, channel posts' and stories'
 *    media; the sweeper that deletes what nothing references any more (`background`, for the
 *    app to start and stop) and the `accountData` owner for recovery and deletion.
 * 2. `createMediaArea`: the MediaService over that library (uploads, downloads under the access
 *    rule, avatars), given the ports the rule asks: who may read a channel (`ChannelReaders`)
 *    and who may see a story (`StoryAudience`).
 */
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { MediaSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { MessageAttachments } from './attachments.js';
import { Avatars } from './avatars.js';
import { Downloads } from './downloads/downloads.js';
import type { ChannelReaders } from './downloads/channel-readers.js';
import type { StoryAudience } from './downloads/story-audience-port.js';
import { MediaAccess } from './downloads/media-access.js';
import { HeldMedia } from './held-media.js';
import { MediaAccountData } from './media-account-data.js';
import { mediaIndexes as itemIndexes } from './media-item.js';
import { MediaItems } from './media-items.js';
import type { MediaMetrics } from './media-metrics.js';
import { createMediaService } from './media-service.js';
import { MediaDisposal } from './retention/media-disposal.js';
import { MediaSweeper } from './retention/media-sweeper.js';
import { openBlobStore } from './storage/open-blob-store.js';
import { Uploads } from './uploads/uploads.js';

export interface MediaLibraryDependencies {
  readonly settings: MediaSettings;
  readonly store: DocumentStore;
  /** Where the blobs go: GridFS on this MongoDB when set, else files in `dataDir`. */
  readonly blobStorage: { readonly mongodbUrl: string | undefined; readonly dataDir: string };
  readonly metrics: MediaMetrics;
  readonly logger: Logger;
}

/** Every index of the media area (created at start, and by the ensure-indexes command before a rollout). */
export const mediaIndexes: IndexSpec[] = [...itemIndexes];

export async function createMediaLibrary({
  settings,
  store,
  blobStorage,
  metrics,
  logger,
}: MediaLibraryDependencies) {
  await store.ensureIndexes(mediaIndexes);
  const blobs = await openBlobStore(blobStorage);
  const items = new MediaItems(store);
  const disposal = new MediaDisposal(items, blobs);
  const avatars = new Avatars(store, items);
  const sweeper = new MediaSweeper(items, disposal, settings, metrics, logger);
  return {
    /** The items and their blobs, for the media service (createMediaArea). */
    items,
    blobs,
    attachments: new MessageAttachments(items),
    avatars,
    held: new HeldMedia(items),
    sweeper,
    /** The sweeper as the app's background task; stopping it also closes the blob store. */
    background: {
      start: () => sweeper.start(),
      async stop() {
        await sweeper.stop();
        await blobs.close();
      },
    },
    accountData: new MediaAccountData(items, avatars, disposal, metrics),
  };
}

export type MediaLibrary = Awaited<ReturnType<typeof createMediaLibrary>>;

export interface MediaDependencies {
  readonly settings: Pick<MediaSettings, 'unreferencedRetentionMs'>;
  readonly library: MediaLibrary;
  /** Who is in a conversation: a message's media is for its members. */
  readonly conversations: Conversations;
  /** Who may read a channel, for its posts' media (the channels area answers). */
  readonly channelReaders: ChannelReaders;
  /** Who may see a story, for its media (the stories area answers). */
  readonly storyAudience: StoryAudience;
  readonly metrics: MediaMetrics;
}

export function createMediaArea({
  settings,
  library,
  conversations,
  channelReaders,
  storyAudience,
  metrics,
}: MediaDependencies) {
  const { items, blobs, avatars } = library;
  const uploads = new Uploads(items, blobs, settings.unreferencedRetentionMs, metrics);
  const downloads = new Downloads(
    items,
    blobs,
    new MediaAccess(conversations, channelReaders, storyAudience),
    metrics,
  );
  return { service: createMediaService({ uploads, downloads, avatars }) };
}

export type MediaArea = ReturnType<typeof createMediaArea>;
