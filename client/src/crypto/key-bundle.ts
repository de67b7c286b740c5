/**
 * Key bundles as keys.proto defines them (JSON members camelCase, keys in base64) and the
 * chain-of-trust check a fetching client makes without trusting the service: the wallet bound
 * the Ed25519 key (EIP-191), which signed the bundle statement and the signed prekey.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { fromBase64, utf8ToBytes } from './bytes.js';
import { E2eeError } from './e2ee-error.js';
import { recoverPersonalSigner } from './wallet-signer.js';

export interface PreKeyJson {
  keyId: number;
  publicKey: string;
}

export interface SignedPreKeyJson extends PreKeyJson {
  signature: string;
  timestamp: number;
}

export interface WalletBindingJson {
  signature: string;
  timestamp: number;
}

/** The body of `POST /keys` (PublishKeyBundleRequest). */
export interface PublishBundleJson {
  ed25519PublicKey: string;
  identityKey: string;
  registrationId: number;
  signedPreKey: SignedPreKeyJson;
  oneTimePreKeys: PreKeyJson[];
  walletBinding: WalletBindingJson;
  bundleSignature: string;
}

/** A bundle as `GET /keys/{address}` returns it (KeyBundle). */
export interface KeyBundleJson extends PublishBundleJson {
  address: string;
}

/** What a verified bundle gives the key agreement: raw 32-byte X25519 keys. */
export interface VerifiedBundle {
  address: string;
  registrationId: number;
  identityKey: Uint8Array;
  ed25519PublicKey: Uint8Array;
  signedPreKey: { keyId: number; publicKey: Uint8Array };
  oneTimePreKey?: { keyId: number; publicKey: Uint8Array };
}

export const keyBindingMessage = (
  serviceName: string,
  address: string,
  ed25519PublicKey: string,
  timestamp: number,
) =>
  [
    `${serviceName} Key Binding`,
    '',
    'I confirm that this wallet owns the end-to-end encryption key below.',
    '',
    `Wallet: ${address}`,
    `Ed25519 Public Key: ${ed25519PublicKey}`,
    `Timestamp: ${timestamp}`,
  ].join('\n');

export const bundleStatement = (
  serviceName: string,
  address: string,
  bundle: Omit<PublishBundleJson, 'bundleSignature' | 'oneTimePreKeys'>,
) =>
  [
    `${serviceName} Key Bundle`,
    `Wallet: ${address}`,
    `Identity Key: ${bundle.identityKey}`,
    `Registration Id: ${bundle.registrationId}`,
    `Signed PreKey Id: ${bundle.signedPreKey.keyId}`,
    `Signed PreKey: ${bundle.signedPreKey.publicKey}`,
    `Signed PreKey Timestamp: ${bundle.signedPreKey.timestamp}`,
    `Wallet Binding Timestamp: ${bundle.walletBinding.timestamp}`,
  ].join('\n');

/** An X25519 key as published: 32 raw bytes, or 33 with Signal's 0x05 type prefix. */
function x25519Key(base64: string): Uint8Array {
  const bytes = fromBase64(base64);
  if (bytes.length === 33 && bytes[0] === 0x05) return bytes.slice(1);
  if (bytes.length !== 32) throw new E2eeError('UNTRUSTED_IDENTITY', 'bad X25519 key length');
  return bytes;
}

/**
 * Checks the three signatures of `bundle` for the owner `expectedAddress` and returns its keys;
 * throws `UNTRUSTED_IDENTITY` if any link of the chain fails.
 */
export function verifyKeyBundle(
  bundle: KeyBundleJson,
  expectedAddress: string,
  serviceName: string,
): VerifiedBundle {
  const refuse = (why: string): never => {
    throw new E2eeError('UNTRUSTED_IDENTITY', `key bundle of ${expectedAddress}: ${why}`);
  };
  const address = expectedAddress.toLowerCase();
  if (bundle.address.toLowerCase() !== address) refuse('published for another address');
  const binding = keyBindingMessage(
    serviceName,
    address,
    bundle.ed25519PublicKey,
    bundle.walletBinding.timestamp,
  );
  if (recoverPersonalSigner(binding, bundle.walletBinding.signature) !== address)
    refuse('the wallet did not bind its Ed25519 key');
  try {
    const ed25519PublicKey = fromBase64(bundle.ed25519PublicKey);
    const statement = utf8ToBytes(bundleStatement(serviceName, address, bundle));
    if (!ed25519.verify(fromBase64(bundle.bundleSignature), statement, ed25519PublicKey))
      refuse('the bundle signature does not verify');
    const signedPreKey = fromBase64(bundle.signedPreKey.publicKey);
    if (!ed25519.verify(fromBase64(bundle.signedPreKey.signature), signedPreKey, ed25519PublicKey))
      refuse('the signed prekey signature does not verify');
    const oneTime = bundle.oneTimePreKeys[0];
    return {
      address,
      registrationId: bundle.registrationId,
      identityKey: x25519Key(bundle.identityKey),
      ed25519PublicKey,
      signedPreKey: {
        keyId: bundle.signedPreKey.keyId,
        publicKey: x25519Key(bundle.signedPreKey.publicKey),
      },
      ...(oneTime && {
        oneTimePreKey: { keyId: oneTime.keyId, publicKey: x25519Key(oneTime.publicKey) },
      }),
    };
  } catch (error) {
    if (error instanceof E2eeError) throw error;
    return refuse(`malformed (${String(error)})`);
  }
}
