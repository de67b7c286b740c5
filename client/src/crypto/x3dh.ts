/**
 * X3DH key agreement as Signal specifies it (https://signal.org/docs/specifications/x3dh/), with
 * keys.proto's bundle: curve X25519, hash SHA-256, identity keys are X25519 keys and the signed
 * prekey is signed by the owner's Ed25519 key (checked in key-bundle.ts before we get here).
 *
 *   DH1 = DH(IK_A, SPK_B)  DH2 = DH(EK_A, IK_B)  DH3 = DH(EK_A, SPK_B)  DH4 = DH(EK_A, OPK_B)
 *   SK  = HKDF(salt = 32 zero bytes, ikm = F || DH1 || DH2 || DH3 [|| DH4], info)  (F = 32 × 0xFF)
 *   AD  = IK_A || IK_B   (raw 32-byte public keys)
 */
import { x25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, utf8ToBytes } from './bytes.js';
import { E2eeError } from './e2ee-error.js';
import type { VerifiedBundle } from './key-bundle.js';
import { newX25519Pair } from './local-identity.js';
import type { KeyPair } from './local-identity.js';

const F = new Uint8Array(32).fill(0xff);
const INFO = utf8ToBytes('E2EE v1 X3DH');

export interface AgreedSecret {
  sharedSecret: Uint8Array;
  associatedData: Uint8Array;
}

/** DH that refuses a low-order public key (noble throws on an all-zero shared secret). */
export function dh(secretKey: Uint8Array, publicKey: Uint8Array): Uint8Array {
  try {
    return x25519.getSharedSecret(secretKey, publicKey);
  } catch {
    throw new E2eeError('AUTHENTICATION_FAILED', 'invalid X25519 public key');
  }
}

const deriveSecret = (dhs: Uint8Array[]) =>
  hkdf(sha256, concatBytes(F, ...dhs), new Uint8Array(32), INFO, 32);

/** Alice's side: the secret for `bundle` and the ephemeral key her first message carries. */
export function x3dhInitiate(
  identity: KeyPair,
  bundle: VerifiedBundle,
): AgreedSecret & { ephemeralKey: Uint8Array } {
  const ephemeral = newX25519Pair();
  const dhs = [
    dh(identity.secretKey, bundle.signedPreKey.publicKey),
    dh(ephemeral.secretKey, bundle.identityKey),
    dh(ephemeral.secretKey, bundle.signedPreKey.publicKey),
    ...(bundle.oneTimePreKey ? [dh(ephemeral.secretKey, bundle.oneTimePreKey.publicKey)] : []),
  ];
  return {
    sharedSecret: deriveSecret(dhs),
    associatedData: concatBytes(identity.publicKey, bundle.identityKey),
    ephemeralKey: ephemeral.publicKey,
  };
}

/** Bob's side, from the keys named by Alice's initial message. */
export function x3dhRespond(
  identity: KeyPair,
  signedPreKey: KeyPair,
  oneTimePreKeySecret: Uint8Array | undefined,
  initiatorIdentity: Uint8Array,
  ephemeralKey: Uint8Array,
): AgreedSecret {
  const dhs = [
    dh(signedPreKey.secretKey, initiatorIdentity),
    dh(identity.secretKey, ephemeralKey),
    dh(signedPreKey.secretKey, ephemeralKey),
    ...(oneTimePreKeySecret ? [dh(oneTimePreKeySecret, ephemeralKey)] : []),
  ];
  return {
    sharedSecret: deriveSecret(dhs),
    associatedData: concatBytes(initiatorIdentity, identity.publicKey),
  };
}
