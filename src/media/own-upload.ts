/**
 * The check every use of an upload starts with: a message, an avatar, a group or channel may
 * only use a stored upload of the user's own, of the kind the use needs.
 */
import { gone, invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { MediaItem } from './media-item.js';
import type { MediaItems } from './media-items.js';

/** 404 unless `mediaId` is an upload of `owner` (finished); 410 when deleted; 400 when of another kind. */
export async function requireOwnUpload(
  items: MediaItems,
  owner: string,
  mediaId: string,
  kind: string,
): Promise<MediaItem> {
  const found = await items.find(mediaId);
  if (!found || found.ownerAddress !== owner || found.state === 'uploading')
    throw notFound('media_id is not an upload of yours');
  if (found.state !== 'stored') throw gone('This media was deleted');
  if (found.kind !== kind) throw invalidArgument(`media_id must be an upload of kind ${kind}`);
  return found;
}
