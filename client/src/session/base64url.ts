/** base64url without padding (RFC 4648 §5), as JOSE writes it. */
export function base64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export const base64urlJson = (value: unknown): string =>
  base64url(new TextEncoder().encode(JSON.stringify(value)));
