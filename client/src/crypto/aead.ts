/**
 * The AEAD every layer encrypts with: AES-256-GCM (@noble/ciphers). Its key and nonce are
 * derived with HKDF-SHA256 from a secret that is used for one message only (a ratchet or sender
 * key message key, a sealed-sender layer key), which is what makes a derived nonce safe — the
 * same construction as Signal's ENCRYPT(mk, …), with GCM in place of CBC plus HMAC, which the
 * Double Ratchet document allows.
 */
import { gcm } from '@noble/ciphers/aes.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { utf8ToBytes } from './bytes.js';
import { E2eeError } from './e2ee-error.js';

const ZERO_SALT = new Uint8Array(32);
const KEY_BYTES = 32;
const NONCE_BYTES = 12;

function cipherFor(secret: Uint8Array, purpose: string, associatedData: Uint8Array) {
  const material = hkdf(sha256, secret, ZERO_SALT, utf8ToBytes(purpose), KEY_BYTES + NONCE_BYTES);
  return gcm(material.subarray(0, KEY_BYTES), material.subarray(KEY_BYTES), associatedData);
}

export function aeadSeal(
  secret: Uint8Array,
  purpose: string,
  plaintext: Uint8Array,
  associatedData: Uint8Array,
): Uint8Array {
  return cipherFor(secret, purpose, associatedData).encrypt(plaintext);
}

/** Throws `AUTHENTICATION_FAILED` when the ciphertext or its associated data were altered. */
export function aeadOpen(
  secret: Uint8Array,
  purpose: string,
  ciphertext: Uint8Array,
  associatedData: Uint8Array,
): Uint8Array {
  try {
    return cipherFor(secret, purpose, associatedData).decrypt(ciphertext);
  } catch {
    throw new E2eeError('AUTHENTICATION_FAILED', 'the message does not authenticate');
  }
}
