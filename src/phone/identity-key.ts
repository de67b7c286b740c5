/**
 * The device identity key of a phone account: a raw 32-byte Ed25519 public key, and the
 * 64-byte signatures made with it, both standard base64 with padding (phone.proto).
 */
import { createPublicKey, verify } from 'node:crypto';
import { invalidArgument } from '../platform/errors/api-error.js';

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** The decoded bytes of a base64 member of exactly `bytes` bytes; 400 otherwise. */
export function requireBase64(value: string, bytes: number, field: string): Buffer {
  const decoded = Buffer.from(value, 'base64');
  if (!BASE64.test(value) || decoded.length !== bytes || decoded.toString('base64') !== value) {
    throw invalidArgument(`${field} must be ${bytes} bytes in standard base64 with padding`);
  }
  return decoded;
}

/** Whether `signature` is the Ed25519 signature of the UTF-8 `text` by the raw public key. */
export function verifiesWithIdentityKey(
  publicKey: Buffer,
  text: string,
  signature: Buffer,
): boolean {
  const key = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: publicKey.toString('base64url') },
    format: 'jwk',
  });
  return verify(null, Buffer.from(text, 'utf8'), key, signature);
}
