/**
 * The check of avatar and sticker bytes: they are public images, shown to anyone, so the
 * server makes sure they are what they claim. The type is sniffed from the bytes (`file-type`)
 * and must be one the kind accepts and the one declared. Avatars are re-encoded (`sharp`) in
 * their own format: that drops EXIF and other metadata (a phone photo's location) and anything
 * hidden after the image data. Encrypted attachments never come here: the server cannot and
 * must not look into them.
 */
import { fileTypeFromBuffer } from 'file-type';
import sharp from 'sharp';
import { invalidArgument } from '../../platform/errors/api-error.js';
import type { MediaKind } from '../media-kinds.js';
import { rulesOf } from '../media-kinds.js';

/** Larger decoded images are refused, against decompression bombs (sharp's own default is similar). */
const MAX_PIXELS = 40_000_000;

export async function checkedPublicImage(
  kind: MediaKind,
  declaredType: string,
  data: Buffer,
): Promise<Buffer> {
  const sniffed = await fileTypeFromBuffer(data);
  if (!sniffed || !rulesOf(kind).contentTypes.includes(sniffed.mime)) {
    throw invalidArgument(
      `data must be an image of type ${rulesOf(kind).contentTypes.join(', ')} for kind ${kind}`,
    );
  }
  if (sniffed.mime !== declaredType)
    throw invalidArgument(`data is ${sniffed.mime}, not the declared ${declaredType}`);
  if (kind !== 'avatar') return data;
  try {
    // Without withMetadata() sharp writes no EXIF, ICC or XMP; rotate() first applies the EXIF orientation.
    return await sharp(data, { limitInputPixels: MAX_PIXELS })
      .rotate()
      .toFormat(sniffed.ext === 'jpg' ? 'jpeg' : (sniffed.ext as 'png' | 'webp'))
      .toBuffer();
  } catch {
    throw invalidArgument('data is not a valid image');
  }
}
