/**
 * Checks a signed bundle the way a fetching client does: its shape, then the chain of trust of
 * keys.proto — the wallet signed the Ed25519 key (EIP-191), the Ed25519 key signed the bundle
 * statement and the signed prekey. The same check guards every way a record arrives: a
 * publish, a DHT record from a peer, the record about to be served.
 */
import { createPublicKey, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { recoverPersonalSignAddress } from '../../identity/wallet/eip191.js';
import {
  decodeBase64,
  ed25519PublicKeyBytes,
  ed25519SignatureBytes,
  isX25519PublicKey,
} from './key-encoding.js';
import type { SignedBundle } from './signed-bundle.js';
import { bundleStatement, keyBindingMessage } from './statements.js';

export type BundleFailureReason =
  'INVALID_ARGUMENT' | 'INVALID_SIGNATURE' | 'INVALID_WALLET_BINDING';
export type BundleCheck =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: BundleFailureReason; readonly detail: string };

export const MAX_REGISTRATION_ID = 16_380;
export const MAX_KEY_ID = 16_777_215;

const OK: BundleCheck = { ok: true };
const fail = (reason: BundleFailureReason, detail: string): BundleCheck => ({
  ok: false,
  reason,
  detail,
});

export function checkSignedBundle(serviceName: string, bundle: SignedBundle): BundleCheck {
  const shape = checkShape(bundle);
  if (!shape.ok) return shape;
  const { address, ed25519PublicKey, walletBinding, signedPreKey } = bundle;

  const signer = recoverPersonalSignAddress(
    keyBindingMessage(serviceName, address, ed25519PublicKey, walletBinding.timestamp),
    walletBinding.signature,
  );
  if (!signer.ok)
    return fail('INVALID_WALLET_BINDING', `walletBinding.signature: ${signer.detail}`);
  if (signer.address !== address)
    return fail(
      'INVALID_WALLET_BINDING',
      "walletBinding.signature is not the owner's wallet signature over the key binding message",
    );

  const ed25519 = ed25519Key(ed25519PublicKeyBytes(ed25519PublicKey) as Buffer);
  if (
    !verifies(ed25519, Buffer.from(bundleStatement(serviceName, bundle)), bundle.bundleSignature)
  ) {
    return fail(
      'INVALID_SIGNATURE',
      'bundleSignature does not verify with ed25519PublicKey over the bundle statement',
    );
  }
  if (!verifies(ed25519, decodeBase64(signedPreKey.publicKey) as Buffer, signedPreKey.signature)) {
    return fail(
      'INVALID_SIGNATURE',
      'signedPreKey.signature does not verify with ed25519PublicKey over signedPreKey.publicKey',
    );
  }
  return OK;
}

function checkShape(bundle: SignedBundle): BundleCheck {
  const { signedPreKey: spk, walletBinding } = bundle;
  if (!/^0x[0-9a-f]{40}$/.test(bundle.address))
    return fail('INVALID_ARGUMENT', 'address must be a lowercase wallet address');
  if (!ed25519PublicKeyBytes(bundle.ed25519PublicKey))
    return fail('INVALID_ARGUMENT', 'ed25519PublicKey must be 32 bytes in base64');
  if (!isX25519PublicKey(bundle.identityKey))
    return fail(
      'INVALID_ARGUMENT',
      'identityKey must be an X25519 public key in base64 (32 bytes, or 33 with the 0x05 prefix)',
    );
  if (!inRange(bundle.registrationId, 1, MAX_REGISTRATION_ID))
    return fail('INVALID_ARGUMENT', `registrationId must be 1 to ${MAX_REGISTRATION_ID}`);
  if (!inRange(spk.keyId, 1, MAX_KEY_ID))
    return fail('INVALID_ARGUMENT', `signedPreKey.keyId must be 1 to ${MAX_KEY_ID}`);
  if (!isX25519PublicKey(spk.publicKey))
    return fail(
      'INVALID_ARGUMENT',
      'signedPreKey.publicKey must be an X25519 public key in base64',
    );
  if (!inRange(spk.timestamp, 0, Number.MAX_SAFE_INTEGER))
    return fail('INVALID_ARGUMENT', 'signedPreKey.timestamp must be epoch milliseconds');
  if (!ed25519SignatureBytes(spk.signature))
    return fail('INVALID_ARGUMENT', 'signedPreKey.signature must be 64 bytes in base64');
  if (!ed25519SignatureBytes(bundle.bundleSignature))
    return fail('INVALID_ARGUMENT', 'bundleSignature must be 64 bytes in base64');
  if (!inRange(walletBinding.timestamp, 1, Number.MAX_SAFE_INTEGER))
    return fail('INVALID_ARGUMENT', 'walletBinding.timestamp must be epoch milliseconds');
  return OK;
}

const inRange = (value: number, min: number, max: number) =>
  Number.isSafeInteger(value) && value >= min && value <= max;

function ed25519Key(raw: Buffer): KeyObject {
  return createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
    format: 'jwk',
  });
}

function verifies(key: KeyObject, data: Buffer, signature: string): boolean {
  return verify(null, data, key, ed25519SignatureBytes(signature) as Buffer);
}
