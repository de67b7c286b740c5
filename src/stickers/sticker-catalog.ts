/**
 * The sticker catalog the operator curates: packs in catalog order, each with its stickers and
 * their images, loaded once at start (load-sticker-catalog.ts) and read-only afterwards.
 */
import { createHash } from 'node:crypto';

export interface CatalogSticker {
  /** `<pack id>.<name>`: unique across packs, and names its pack. */
  readonly id: string;
  readonly packId: string;
  readonly emoji: string;
  readonly image: StickerImage;
}

export interface StickerImage {
  readonly contentType: 'image/png' | 'image/webp';
  readonly bytes: Uint8Array;
  /** A strong validator: the image's digest, quoted as HTTP wants it. */
  readonly etag: string;
}

export interface CatalogPack {
  readonly id: string;
  readonly title: string;
  readonly author: string;
  readonly animated: boolean;
  readonly cover: CatalogSticker;
  readonly stickers: readonly CatalogSticker[];
}

export class StickerCatalog {
  private readonly byId: ReadonlyMap<string, CatalogSticker>;
  private readonly packById: ReadonlyMap<string, CatalogPack>;

  constructor(readonly packs: readonly CatalogPack[]) {
    this.packById = new Map(packs.map((pack) => [pack.id, pack]));
    this.byId = new Map(
      packs.flatMap((pack) => pack.stickers.map((sticker) => [sticker.id, sticker] as const)),
    );
  }

  pack(id: string): CatalogPack | undefined {
    return this.packById.get(id);
  }

  sticker(id: string): CatalogSticker | undefined {
    return this.byId.get(id);
  }
}

export function stickerImage(
  contentType: StickerImage['contentType'],
  bytes: Uint8Array,
): StickerImage {
  return {
    contentType,
    bytes,
    etag: `"${createHash('sha256').update(bytes).digest('base64url').slice(0, 27)}"`,
  };
}
