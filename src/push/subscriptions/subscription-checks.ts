/**
 * What a browser's `PushSubscription.toJSON()` looks like, checked field by field so that
 * nothing a browser could not have produced is stored: an `https` endpoint of bounded length,
 * `keys.p256dh` a 65-byte uncompressed P-256 point that lies on the curve, `keys.auth` 16
 * bytes, both base64url (RFC 8291 section 3; push.proto).
 */
import { createPublicKey } from 'node:crypto';
import { invalidArgument } from '../../platform/errors/api-error.js';

export const MAX_ENDPOINT_LENGTH = 2048;
const BASE64URL = /^[A-Za-z0-9_-]+={0,2}$/;
/** DER prefix of a SubjectPublicKeyInfo for an uncompressed P-256 point (RFC 5480). */
const P256_SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex');

export interface CheckedSubscription {
  readonly endpoint: string;
  readonly p256dh: string;
  readonly auth: string;
}

export function checkSubscription(
  endpoint: string,
  keys: { auth: string; p256dh: string } | undefined,
): CheckedSubscription {
  checkEndpoint(endpoint);
  if (!keys) throw invalidArgument('keys is required: { auth, p256dh }');
  const auth = decodeBase64Url(keys.auth, 'keys.auth');
  if (auth.length !== 16) throw invalidArgument('keys.auth must be 16 bytes (base64url)');
  const point = decodeBase64Url(keys.p256dh, 'keys.p256dh');
  if (point.length !== 65 || point[0] !== 0x04 || !isOnP256(point)) {
    throw invalidArgument(
      'keys.p256dh must be a 65-byte uncompressed P-256 public key (base64url)',
    );
  }
  // Stored without padding, the way browsers and the encryption library spell them.
  return { endpoint, p256dh: point.toString('base64url'), auth: auth.toString('base64url') };
}

export function checkEndpoint(endpoint: string): void {
  if (endpoint === '') throw invalidArgument('endpoint is required');
  if (endpoint.length > MAX_ENDPOINT_LENGTH)
    throw invalidArgument(`endpoint must have at most ${MAX_ENDPOINT_LENGTH} characters`);
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    throw invalidArgument('endpoint must be an https URL');
  }
  if (
    url.protocol !== 'https:' ||
    url.hostname === '' ||
    url.username !== '' ||
    url.password !== ''
  ) {
    throw invalidArgument('endpoint must be an https URL without credentials');
  }
}

function decodeBase64Url(value: string, field: string): Buffer {
  if (value === '') throw invalidArgument(`${field} is required`);
  if (!BASE64URL.test(value)) throw invalidArgument(`${field} must be base64url`);
  return Buffer.from(value, 'base64url');
}

/** node:crypto refuses a point that is not on the curve. */
function isOnP256(point: Buffer): boolean {
  try {
    createPublicKey({ key: Buffer.concat([P256_SPKI_PREFIX, point]), format: 'der', type: 'spki' });
    return true;
  } catch {
    return false;
  }
}
