/**
 * Users' current avatars (the public profile picture served at `/api/v1/avatar/{address}`).
 * `set` makes one of the owner's avatar uploads the current one: the item is referenced by the
 * avatar for as long as it is current, and the one it replaces stops being referenced, so the
 * sweeper deletes it. Profile updates (update-profile) call `set` with the media id they get.
 */
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { Collection, DocumentStore } from '../platform/store/document-store.js';
import type { MediaItem } from './media-item.js';
import { ignoreMissing } from './media-items.js';
import type { MediaItems } from './media-items.js';

export interface AvatarRecord {
  /** The owner's address. */
  _id: string;
  mediaId: string;
  setAt: Date;
}

export const AVATARS = 'avatars';

/** The public URL of an address's avatar, as profiles show it. */
export const avatarUrl = (address: string) => `/api/v1/avatar/${address}`;

export class Avatars {
  private readonly records: Collection<AvatarRecord>;

  constructor(
    store: DocumentStore,
    private readonly items: MediaItems,
  ) {
    this.records = store.collection<AvatarRecord>(AVATARS);
  }

  /** 404 unless `mediaId` is a stored upload of `owner`; 400 unless it is of kind `avatar`. Answers the avatar's public URL. */
  async set(owner: string, mediaId: string): Promise<string> {
    const item = await this.items.find(mediaId);
    if (!item || item.ownerAddress !== owner || item.state !== 'stored')
      throw notFound('media_id is not an upload of yours');
    if (item.kind !== 'avatar') throw invalidArgument('media_id must be an upload of kind avatar');
    await this.items.changeReferences(mediaId, (current) =>
      isAvatarOf(current, owner) ? undefined : [...current.references, avatarReference(owner)],
    );
    const previous = await this.records.findOneAndUpdate(
      { _id: owner },
      { $set: { mediaId, setAt: new Date() } },
      { upsert: true, returnDocument: 'before' },
    );
    if (previous && previous.mediaId !== mediaId) await this.release(previous.mediaId, owner);
    return avatarUrl(owner);
  }

  /** The owner's current avatar item, if any is stored. */
  async current(owner: string): Promise<MediaItem | undefined> {
    const record = await this.records.findOne({ _id: owner });
    const item = record ? await this.items.find(record.mediaId) : null;
    return item?.state === 'stored' ? item : undefined;
  }

  /**
   * Recovery: `to` takes `from`'s avatar unless it has set one of its own. Resumable: the new
   * record is written before the old one goes.
   */
  async move(from: string, to: string): Promise<void> {
    const record = await this.records.findOne({ _id: from });
    if (!record) return;
    const taken = await this.records.findOne({ _id: to });
    if (!taken) {
      await this.items
        .changeReferences(record.mediaId, (item) =>
          isAvatarOf(item, to) ? undefined : [...item.references, avatarReference(to)],
        )
        .catch(ignoreMissing);
      await this.records.updateOne(
        { _id: to },
        { $setOnInsert: { mediaId: record.mediaId, setAt: record.setAt } },
        { upsert: true },
      );
    }
    await this.release(record.mediaId, from);
    await this.records.deleteOne({ _id: from });
  }

  /** The owner removes the avatar (update-profile with an empty media id), or the account is deleted. */
  async remove(owner: string): Promise<void> {
    const record = await this.records.findOne({ _id: owner });
    if (!record) return;
    await this.release(record.mediaId, owner);
    await this.records.deleteOne({ _id: owner });
  }

  private async release(mediaId: string, owner: string): Promise<void> {
    const now = new Date();
    await this.items
      .changeReferences(
        mediaId,
        (item) =>
          isAvatarOf(item, owner)
            ? item.references.filter(
                (reference) => !(reference.kind === 'avatar' && reference.id === owner),
              )
            : undefined,
        now,
      )
      .catch(ignoreMissing);
  }
}

const avatarReference = (owner: string) => ({
  kind: 'avatar' as const,
  id: owner,
  conversationId: '',
  until: null,
  grantsAccess: true,
});
const isAvatarOf = (item: MediaItem, owner: string) =>
  item.references.some((reference) => reference.kind === 'avatar' && reference.id === owner);
