/**
 * The uploads a message may attach. Uploads (`POST /api/v1/upload-media`) are written by the
 * media service into the `media` collection; a message may only attach an upload of the
 * sender's of the kind the message needs.
 */
import type { Collection, DocumentStore } from '../../platform/store/document-store.js';
import { notFound, invalidArgument } from '../../platform/errors/api-error.js';

/** The fields of a media record that sending relies on. */
export interface MediaRecord {
  _id: string;
  ownerAddress: string;
  kind: string;
}

export const MEDIA = 'media';

export class MediaCatalog {
  private readonly media: Collection<MediaRecord>;

  constructor(store: DocumentStore) {
    this.media = store.collection<MediaRecord>(MEDIA);
  }

  /** 404 when the caller uploaded no such media; 400 when it is of another kind. */
  async requireOwnUpload(owner: string, mediaId: string, kind: string): Promise<void> {
    const record = mediaId.length <= 64 ? await this.media.findOne({ _id: mediaId, ownerAddress: owner }) : null;
    if (!record) throw notFound('media_id is not an upload of yours');
    if (record.kind !== kind) throw invalidArgument(`media_id must be an upload of kind ${kind}`);
  }
}
