/** The rules for a list of one-time prekeys in a request (a publish or a top-up). */
import { invalidArgument } from '../platform/errors/api-error.js';
import { MAX_KEY_ID } from './bundle/bundle-verification.js';
import { isX25519PublicKey } from './bundle/key-encoding.js';
import type { OneTimePreKey } from './store/one-time-prekeys.js';

/** At most this many keys in one request. */
export const MAX_PREKEYS_PER_REQUEST = 100;

/** The keys as stored; 400 for more than allowed, a bad key or id, or an id given twice. */
export function checkedOneTimePreKeys(
  keys: readonly OneTimePreKey[],
  min: number,
): OneTimePreKey[] {
  if (keys.length < min || keys.length > MAX_PREKEYS_PER_REQUEST) {
    throw invalidArgument(`oneTimePreKeys must hold ${min} to ${MAX_PREKEYS_PER_REQUEST} keys`);
  }
  const ids = new Set<number>();
  return keys.map(({ keyId, publicKey }, index) => {
    if (!Number.isSafeInteger(keyId) || keyId < 1 || keyId > MAX_KEY_ID)
      throw invalidArgument(`oneTimePreKeys[${index}].keyId must be 1 to ${MAX_KEY_ID}`);
    if (!isX25519PublicKey(publicKey))
      throw invalidArgument(
        `oneTimePreKeys[${index}].publicKey must be an X25519 public key in base64`,
      );
    if (ids.has(keyId)) throw invalidArgument(`oneTimePreKeys: keyId ${keyId} is given twice`);
    ids.add(keyId);
    return { keyId, publicKey };
  });
}
