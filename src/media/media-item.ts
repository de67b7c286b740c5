/**
 * A media item as stored: the metadata of one blob (its bytes are in the blob store under the
 * same id) and what references it. A reference keeps the item alive until its `until`; the
 * item is deleted once every reference has ended, or, when nothing ever referenced it, the
 * retention period after the upload (media-sweeper.ts).
 */
import type { IndexSpec } from '../platform/store/document-store.js';
import type { MediaKind } from './media-kinds.js';

/**
 * What can reference a blob, each with its access rule in `media-access.ts`:
 * - `message`: a direct or group message (the conversation's members);
 * - `avatar`: a user's current profile picture (any authenticated user);
 * - `group_avatar`, `channel_avatar`: a group's or channel's current picture (any authenticated
 *   user, like user avatars: they are `avatar` uploads, public images);
 * - `channel_post`: a channel post's media (whoever may read the channel);
 * - `story`: a story's image or video until the story expires (the story's audience).
 */
export type ReferenceKind =
  'message' | 'avatar' | 'group_avatar' | 'channel_avatar' | 'channel_post' | 'story';

export interface MediaReference {
  kind: ReferenceKind;
  /** The message id, the avatar owner's address, the group or channel id, or the post id. */
  id: string;
  /** The conversation of a message reference, the channel of a post reference; empty otherwise. */
  conversationId: string;
  /** When the reference ends (a disappearing or viewed view-once message); null: while it exists. */
  until: Date | null;
  /** Whether the reference lets the conversation's members download (false for withheld messages). */
  grantsAccess: boolean;
}

/** `uploading` until the blob is durable; `deleting` while the sweeper removes it; then `deleted` (410). */
export type MediaState = 'uploading' | 'stored' | 'deleting' | 'deleted';

/** A second, derived blob of an item: the small copy of an avatar (avatar-thumbnail.ts). */
export interface Thumbnail {
  size: number;
  sha256: string;
  contentType: string;
}

export interface MediaItem {
  _id: string;
  ownerAddress: string;
  kind: MediaKind;
  contentType: string;
  size: number;
  sha256: string;
  /** Avatars: the thumbnail's blob, stored under `thumbnailBlobId(_id)`. */
  thumbnail?: Thumbnail;
  createdAt: Date;
  state: MediaState;
  references: MediaReference[];
  /** Raised by every change of `references` or `state`: changes are made conditionally on it. */
  revision: number;
  /**
   * Never later than the moment the item may be deleted: the sweeper looks at items past it and
   * either deletes them or moves it to their true release time. Writers that end a reference
   * lower it with `$min`; adding a reference never brings a release closer, so it leaves it.
   */
  releaseCheckAt: Date;
  /** Set when deleted: the tombstone (answering 410) is kept until then. */
  tombstoneUntil?: Date;
}

export const MEDIA = 'media';
/** "Never" for `releaseCheckAt`: a date, since `$min` would keep a null forever. */
export const NEVER = new Date('9999-12-31T00:00:00Z');

export const mediaIndexes: IndexSpec[] = [
  { collection: MEDIA, name: 'release_check', key: { releaseCheckAt: 1 } },
  { collection: MEDIA, name: 'owner_created', key: { ownerAddress: 1, createdAt: -1 } },
  { collection: MEDIA, name: 'tombstone_ttl', key: { tombstoneUntil: 1 }, expireAfterSeconds: 0 },
];

/** The blob id of an avatar item's thumbnail (media ids are 22 characters, so none collides with it). */
export const thumbnailBlobId = (mediaId: string) => `${mediaId}-thumbnail`;
