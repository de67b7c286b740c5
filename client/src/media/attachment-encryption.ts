/**
 * Attachments are encrypted before upload with a fresh AES-256-GCM key per file; the key, the
 * IV and the digest of the ciphertext travel inside the (end-to-end encrypted) message, so the
 * service stores a blob it cannot read and the recipient can tell a swapped one.
 */
export interface AttachmentKey {
  /** The AES-256-GCM key, base64. */
  readonly key: string;
  /** The 12-byte IV, base64. */
  readonly iv: string;
  /** SHA-256 of the ciphertext (what the service stores), hex. */
  readonly sha256: string;
  /** The media type of the plaintext, e.g. `image/png`. */
  readonly contentType: string;
}

/** WebCrypto's types want bytes over an ArrayBuffer, not a possibly shared one. */
const buffer = (bytes: Uint8Array): BufferSource => bytes as Uint8Array<ArrayBuffer>;
const toBase64 = (bytes: Uint8Array): string => btoa(String.fromCharCode(...bytes));
const fromBase64 = (text: string): Uint8Array =>
  Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
const hex = (bytes: ArrayBuffer): string =>
  Array.from(new Uint8Array(bytes), (byte) => byte.toString(16).padStart(2, '0')).join('');

export async function encryptAttachment(
  plaintext: Uint8Array,
  contentType: string,
): Promise<{ ciphertext: Uint8Array; key: AttachmentKey }> {
  const key = await crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, true, ['encrypt']);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = new Uint8Array(
    await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, buffer(plaintext)),
  );
  return {
    ciphertext,
    key: {
      key: toBase64(new Uint8Array(await crypto.subtle.exportKey('raw', key))),
      iv: toBase64(iv),
      sha256: hex(await crypto.subtle.digest('SHA-256', buffer(ciphertext))),
      contentType,
    },
  };
}

/** Opens a downloaded attachment; rejects when its digest or its GCM tag does not match. */
export async function decryptAttachment(
  ciphertext: Uint8Array,
  attachment: AttachmentKey,
): Promise<Uint8Array> {
  if (hex(await crypto.subtle.digest('SHA-256', buffer(ciphertext))) !== attachment.sha256)
    throw new Error('the attachment is not the one the message names (digest mismatch)');
  const key = await crypto.subtle.importKey(
    'raw',
    buffer(fromBase64(attachment.key)),
    'AES-GCM',
    false,
    ['decrypt'],
  );
  return new Uint8Array(
    await crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: buffer(fromBase64(attachment.iv)) },
      key,
      buffer(ciphertext),
    ),
  );
}
