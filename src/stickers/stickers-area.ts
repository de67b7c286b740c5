/**
 * The stickers area: the operator's catalog, read and checked once at start (a bad pack stops
 * the start), and sticker messages sent through messaging's MessageSender. It holds no
 * per-user records, so it has no account data.
 */
import type { MessageSender } from '../messaging/messages/message-sender.js';
import type { StickerSettings } from '../platform/config/settings.js';
import { DEFAULT_STICKERS_DIR, loadStickerCatalog } from './load-sticker-catalog.js';
import { createStickersService } from './stickers-service.js';

export interface StickersDependencies {
  readonly settings: StickerSettings;
  readonly sender: MessageSender;
}

export async function createStickersArea({ settings, sender }: StickersDependencies) {
  const catalog = await loadStickerCatalog(settings.directory ?? DEFAULT_STICKERS_DIR);
  return { catalog, service: createStickersService({ catalog, sender }) };
}
