/** StickersService (stickers.proto): the operator's catalog, sticker images and sticker messages. */
import type { HandlerContext } from '@connectrpc/connect';
import type {
  GetStickerImageRequest,
  GetStickerPackRequest,
  ListStickerPacksRequest,
  SendStickerRequest,
} from '../gen/service/v1/stickers_pb.js';
import { requireCaller } from '../identity/auth/caller.js';
import { decodeCursor, encodeCursor, pageSize } from '../platform/api/page-cursor.js';
import { invalidArgument, notFound } from '../platform/errors/api-error.js';
import type { MessageSender } from '../messaging/messages/message-sender.js';
import { messageView } from '../messaging/messages/message-view.js';
import type { CatalogPack, CatalogSticker, StickerCatalog } from './sticker-catalog.js';

/** An id always names the same image while the catalog is unchanged; clients keep it a week. */
const IMAGE_CACHE_CONTROL = 'private, max-age=604800';

const stickerView = (sticker: CatalogSticker) => ({
  id: sticker.id,
  packId: sticker.packId,
  emoji: sticker.emoji,
  imageUrl: `/api/v1/stickers/${sticker.id}/image`,
});

const packView = (pack: CatalogPack, withStickers: boolean) => ({
  id: pack.id,
  title: pack.title,
  author: pack.author,
  cover: stickerView(pack.cover),
  stickerCount: pack.stickers.length,
  animated: pack.animated,
  stickers: withStickers ? pack.stickers.map(stickerView) : [],
});

export interface StickersServiceDependencies {
  readonly catalog: StickerCatalog;
  readonly sender: MessageSender;
}

export function createStickersService({ catalog, sender }: StickersServiceDependencies) {
  const knownSticker = (id: string) => {
    const sticker = catalog.sticker(id);
    if (!sticker) throw notFound('No such sticker');
    return sticker;
  };

  return {
    /** Pages by position in the catalog: the cursor holds the index and id of the page's last pack. */
    async listStickerPacks(request: ListStickerPacksRequest, context: HandlerContext) {
      requireCaller(context);
      const limit = pageSize(request.pageSize);
      const after = decodeCursor(request.cursor);
      if (after && catalog.packs[after.sortValue]?.id !== after.id)
        throw invalidArgument('cursor is not valid');
      const start = after ? after.sortValue + 1 : 0;
      const packs = catalog.packs.slice(start, start + limit);
      const last = start + packs.length - 1;
      const nextCursor =
        last < catalog.packs.length - 1
          ? encodeCursor({ sortValue: last, id: catalog.packs[last]!.id })
          : '';
      return {
        success: true,
        message: `${packs.length} sticker packs`,
        packs: packs.map((pack) => packView(pack, false)),
        nextCursor,
      };
    },

    async getStickerPack(request: GetStickerPackRequest, context: HandlerContext) {
      requireCaller(context);
      const pack = catalog.pack(request.packId);
      if (!pack) throw notFound('No such sticker pack');
      return { success: true, message: 'Sticker pack found', pack: packView(pack, true) };
    },

    async getStickerImage(request: GetStickerImageRequest, context: HandlerContext) {
      requireCaller(context);
      const { image } = knownSticker(request.stickerId);
      context.responseHeader.set('ETag', image.etag);
      context.responseHeader.set('Cache-Control', IMAGE_CACHE_CONTROL);
      return { contentType: image.contentType, data: image.bytes };
    },

    async sendSticker(request: SendStickerRequest, context: HandlerContext) {
      const caller = requireCaller(context).address;
      if (request.stickerId === '') throw invalidArgument('sticker_id is required');
      const sticker = knownSticker(request.stickerId);
      const result = await sender.send(caller, {
        clientMessageId: request.clientMessageId,
        recipientAddress: request.recipientAddress,
        groupId: request.groupId,
        channelId: '',
        kind: 'sticker',
        ciphertext: request.ciphertext,
        mediaId: '',
        durationMs: 0,
        viewOnce: false,
        stickerId: sticker.id,
      });
      return {
        success: true,
        message: result.duplicate ? 'Sticker already sent' : 'Sticker sent',
        chatMessage: messageView(result.message),
        duplicate: result.duplicate,
      };
    },
  };
}
