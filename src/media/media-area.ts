/**
 * The media area of an api process: uploads into the blob store (files in DATA_DIR, or GridFS
 * with MongoDB), downloads under the access rule, avatars, the attachments messaging records
 * on its messages, and the sweeper that deletes what nothing references any more. It returns,
 * besides its service: `attachments` for messaging, `avatars` for profile updates, `held`
 * for groups' and channels' avatars, channel posts' and stories' media, `channelReaders` and
 * `storyAudience` for the app to bind to the channels and stories areas once they exist (who
 * may download a post's or a story's media), the
 * `background` task (the sweeper) for the app to start and stop, and its `accountData` for recovery and deletion.
 */
import type { Conversations } from '../messaging/conversations/conversations.js';
import type { MediaSettings } from '../platform/config/settings.js';
import type { Logger } from '../platform/logging/logger.js';
import type { DocumentStore, IndexSpec } from '../platform/store/document-store.js';
import { MessageAttachments } from './attachments.js';
import { Avatars } from './avatars.js';
import { Downloads } from './downloads/downloads.js';
import type { ChannelReaders } from './downloads/channel-readers.js';
import { LateBound } from './downloads/late-bound.js';
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

export interface MediaDependencies {
  readonly settings: MediaSettings;
  readonly store: DocumentStore;
  /** Where the blobs go: GridFS on this MongoDB when set, else files in `dataDir`. */
  readonly blobStorage: { readonly mongodbUrl: string | undefined; readonly dataDir: string };
  readonly conversations: Conversations;
  readonly metrics: MediaMetrics;
  readonly logger: Logger;
}

/** Every index of the media area (created at start, and by the ensure-indexes command before a rollout). */
export const mediaIndexes: IndexSpec[] = [...itemIndexes];

export async function createMediaArea({ settings, store, blobStorage, conversations, metrics, logger }: MediaDependencies) {
  await store.ensureIndexes(mediaIndexes);
  const blobs = await openBlobStore(blobStorage);
  const items = new MediaItems(store);
  const disposal = new MediaDisposal(items, blobs);
  const avatars = new Avatars(store, items);
  const uploads = new Uploads(items, blobs, settings.unreferencedRetentionMs, metrics);
  const channelReaders = new LateBound<ChannelReaders>();
  const storyAudience = new LateBound<StoryAudience>();
  const downloads = new Downloads(items, blobs, new MediaAccess(conversations, channelReaders, storyAudience), metrics);
  const sweeper = new MediaSweeper(items, disposal, settings, metrics, logger);
  return {
    service: createMediaService({ uploads, downloads, avatars }),
    attachments: new MessageAttachments(items),
    avatars,
    held: new HeldMedia(items),
    channelReaders,
    storyAudience,
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

export type MediaArea = Awaited<ReturnType<typeof createMediaArea>>;
