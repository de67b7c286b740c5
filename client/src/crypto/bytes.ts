/** Byte helpers the protocol code shares: base64 as keys.proto prints keys, UTF-8, comparison. */
export { bytesToHex, concatBytes, utf8ToBytes, randomBytes } from '@noble/hashes/utils.js';

/** Standard base64 with padding (keys.proto's encoding of keys and signatures). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  const binary = atob(text);
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

/** Constant-time comparison, so that checking a key or a tag leaks nothing through timing. */
export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference |= a[i]! ^ b[i]!;
  return difference === 0;
}
