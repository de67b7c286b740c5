/**
 * The kinds of upload and their rules (media.proto, UploadMedia): the size limit of each, the
 * content types it accepts and whether its bytes are an image the server checks. Attachments
 * are encrypted on the device, so their real type travels inside the message ciphertext and
 * the server only ever sees `application/octet-stream`.
 */
const MiB = 1_048_576;

export interface KindRules {
  readonly maxBytes: number;
  readonly contentTypes: readonly string[];
  /** Public images the server sniffs (and, for avatars, re-encodes); attachments are opaque. */
  readonly image: boolean;
  /** Any authenticated user may download it (avatars, sticker images). */
  readonly public: boolean;
}

const ENCRYPTED = ['application/octet-stream'];

export const MEDIA_KINDS = {
  voice: { maxBytes: 10 * MiB, contentTypes: ENCRYPTED, image: false, public: false },
  image: { maxBytes: 10 * MiB, contentTypes: ENCRYPTED, image: false, public: false },
  video: { maxBytes: 25 * MiB, contentTypes: ENCRYPTED, image: false, public: false },
  file: { maxBytes: 25 * MiB, contentTypes: ENCRYPTED, image: false, public: false },
  avatar: {
    maxBytes: 5 * MiB,
    contentTypes: ['image/jpeg', 'image/png', 'image/webp'],
    image: true,
    public: true,
  },
  sticker: {
    maxBytes: 1 * MiB,
    contentTypes: ['image/webp', 'image/png'],
    image: true,
    public: true,
  },
} as const satisfies Record<string, KindRules>;

export type MediaKind = keyof typeof MEDIA_KINDS;

/** The largest upload of any kind: what an upload route's body may carry. */
export const MAX_MEDIA_BYTES = Math.max(
  ...Object.values(MEDIA_KINDS).map((rules) => rules.maxBytes),
);

export const isMediaKind = (kind: string): kind is MediaKind => Object.hasOwn(MEDIA_KINDS, kind);

export const rulesOf = (kind: MediaKind): KindRules => MEDIA_KINDS[kind];
