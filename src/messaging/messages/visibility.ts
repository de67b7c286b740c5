/**
 * What a viewer may see of a conversation's messages: nothing that has disappeared (expired
 * messages stay hidden during the moments before the TTL sweep deletes them), nothing that
 * was withheld from the viewer because it was sent while the viewer had blocked its sender,
 * and nothing the viewer deleted for itself (`hiddenFor`). A message deleted for everyone stays
 * visible as its tombstone, so that every reader sees the same numbering.
 */
import type { StoreFilter } from '../../platform/store/document-store.js';
import type { StoredMessage } from './stored-message.js';

export function visibleTo(viewer: string, now: Date): StoreFilter<StoredMessage> {
  return {
    $and: [
      { $or: [{ expiresAt: { $exists: false } }, { expiresAt: { $gt: now } }] },
      { $nor: [{ withheld: true, recipientAddress: viewer }] },
      { hiddenFor: { $ne: viewer } },
    ],
  };
}

export function isVisibleTo(message: StoredMessage, viewer: string, now: Date): boolean {
  if (message.expiresAt && message.expiresAt <= now) return false;
  if (message.hiddenFor?.includes(viewer)) return false;
  return !(message.withheld && message.recipientAddress === viewer);
}
