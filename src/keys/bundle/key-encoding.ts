/**
 * How keys and signatures are spelled in a bundle (keys.proto): standard base64 with padding,
 * one spelling only (the text must be exactly what its bytes encode to), and fixed lengths.
 */

/** The bytes of a strict standard-base64 text, or undefined. */
export function decodeBase64(text: string): Buffer | undefined {
  if (!/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(text))
    return undefined;
  const bytes = Buffer.from(text, 'base64');
  return bytes.toString('base64') === text ? bytes : undefined;
}

/** Signal-style libraries prefix X25519 public keys with their type byte, 0x05. */
const DJB_KEY_TYPE = 0x05;

/** An X25519 public key: 32 bytes, or 33 with the 0x05 type prefix. */
export function isX25519PublicKey(text: string): boolean {
  const bytes = decodeBase64(text);
  return (
    bytes !== undefined &&
    (bytes.length === 32 || (bytes.length === 33 && bytes[0] === DJB_KEY_TYPE))
  );
}

/** The 32 raw bytes of an Ed25519 public key, or undefined. */
export function ed25519PublicKeyBytes(text: string): Buffer | undefined {
  const bytes = decodeBase64(text);
  return bytes?.length === 32 ? bytes : undefined;
}

/** The 64 bytes of an Ed25519 signature, or undefined. */
export function ed25519SignatureBytes(text: string): Buffer | undefined {
  const bytes = decodeBase64(text);
  return bytes?.length === 64 ? bytes : undefined;
}
