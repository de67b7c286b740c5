/**
 * When a media item may be deleted (media.proto, "Retention"): an upload that never finished
 * after an hour; one that nothing references, the retention period after its upload; one that
 * is referenced, once its last reference has ended (never while one lasts as long as its
 * message, avatar or story).
 */
import type { MediaItem } from '../media-item.js';
import { NEVER } from '../media-item.js';

/** An upload still unfinished after this long was cut off. */
export const ABANDONED_UPLOAD_MS = 60 * 60 * 1000;

export function releaseTime(item: MediaItem, unreferencedRetentionMs: number): Date {
  if (item.state === 'uploading') return new Date(item.createdAt.getTime() + ABANDONED_UPLOAD_MS);
  if (item.state !== 'stored') return item.createdAt;
  if (item.references.length === 0)
    return new Date(item.createdAt.getTime() + unreferencedRetentionMs);
  let latest = 0;
  for (const reference of item.references) {
    if (reference.until === null) return NEVER;
    latest = Math.max(latest, reference.until.getTime());
  }
  return new Date(latest);
}
