/**
 * What a message says, as the application sees it: the plaintext inside the ciphertext, JSON in
 * UTF-8. The service never sees any of it (it stores `ciphertext` only). An image's decryption
 * key travels here, inside the encrypted content, never beside it.
 */
import type { AttachmentKey } from '../media/attachment-encryption.js';

export type MessageContent =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly caption: string; readonly attachment: AttachmentKey }
  | { readonly type: 'reaction'; readonly emoji: string };

export const encodeContent = (content: MessageContent): Uint8Array =>
  new TextEncoder().encode(JSON.stringify(content));

export function decodeContent(bytes: Uint8Array): MessageContent {
  const content = JSON.parse(new TextDecoder().decode(bytes)) as MessageContent;
  if (!['text', 'image', 'reaction'].includes(content.type))
    throw new Error(`unknown content type ${String(content.type)}`);
  return content;
}
