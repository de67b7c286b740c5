/**
 * The small copy of an avatar that lists and chat headers show (`?size=thumbnail` on the avatar
 * and media routes): made once at upload, so that serving it costs no image work. WebP at
 * THUMBNAIL_PIXELS on its longer side, never enlarged; stored as a blob of its own next to the
 * avatar's, deleted with it.
 */
import sharp from 'sharp';

export const THUMBNAIL_PIXELS = 128;
export const THUMBNAIL_CONTENT_TYPE = 'image/webp';

/** `image` was checked and re-encoded already (public-image.ts). */
export function avatarThumbnail(image: Buffer): Promise<Buffer> {
  return sharp(image)
    .resize(THUMBNAIL_PIXELS, THUMBNAIL_PIXELS, { fit: 'inside', withoutEnlargement: true })
    .webp()
    .toBuffer();
}
