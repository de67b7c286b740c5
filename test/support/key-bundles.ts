/**
 * A client's side of key bundles, written independently of the service's code: real X25519 and
 * Ed25519 keys (node:crypto), the wallet's EIP-191 signature (ethers), the texts keys.proto
 * tells clients to sign, and the chain-of-trust check a fetching client makes. Tests publish
 * and check bundles with these, never with the service's own functions.
 */
import { createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { verifyMessage } from 'ethers';
import type { Reply } from './session-api.js';
import { SERVICE_NAME } from './wallet.js';
import type { TestUser } from './wallet.js';

const rawPublicKey = (key: KeyObject) =>
  Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url');
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const x25519PublicKey = () => b64(rawPublicKey(generateKeyPairSync('x25519').publicKey));

export const keyBindingMessage = (
  address: string,
  ed25519PublicKey: string,
  timestamp: number,
  serviceName = SERVICE_NAME,
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

export interface BundleBody {
  ed25519PublicKey: string;
  identityKey: string;
  registrationId: number;
  signedPreKey: { keyId: number; publicKey: string; signature: string; timestamp: number };
  oneTimePreKeys: { keyId: number; publicKey: string }[];
  walletBinding: { signature: string; timestamp: number };
  bundleSignature: string;
}

export const bundleStatement = (
  address: string,
  body: Omit<BundleBody, 'bundleSignature'>,
  serviceName = SERVICE_NAME,
) =>
  [
    `${serviceName} Key Bundle`,
    `Wallet: ${address}`,
    `Identity Key: ${body.identityKey}`,
    `Registration Id: ${body.registrationId}`,
    `Signed PreKey Id: ${body.signedPreKey.keyId}`,
    `Signed PreKey: ${body.signedPreKey.publicKey}`,
    `Signed PreKey Timestamp: ${body.signedPreKey.timestamp}`,
    `Wallet Binding Timestamp: ${body.walletBinding.timestamp}`,
  ].join('\n');

export const oneTimePreKeys = (count: number, firstId = 1) =>
  Array.from({ length: count }, (_, i) => ({ keyId: firstId + i, publicKey: x25519PublicKey() }));

/** A user's device keys: one Ed25519 key (bound once to the wallet) and an X25519 identity key. */
export class KeyOwner {
  readonly ed25519 = generateKeyPairSync('ed25519');
  readonly ed25519PublicKey = b64(rawPublicKey(this.ed25519.publicKey));
  readonly identityKey = x25519PublicKey();
  private binding: { signature: string; timestamp: number } | undefined;

  constructor(readonly user: TestUser) {}

  get address(): string {
    return this.user.address.toLowerCase();
  }

  /** The wallet binding, asked of the wallet once (as a client does at install). */
  async walletBinding(timestamp = Date.now()): Promise<{ signature: string; timestamp: number }> {
    if (!this.binding || this.binding.timestamp !== timestamp) {
      this.binding = {
        signature: await this.user.sign(
          keyBindingMessage(this.address, this.ed25519PublicKey, timestamp),
        ),
        timestamp,
      };
    }
    return this.binding;
  }

  /** A complete, correctly signed PublishKeyBundle body; `prekeys` one-time prekeys from id `firstPreKeyId`. */
  async bundle(
    options: {
      prekeys?: number;
      firstPreKeyId?: number;
      signedPreKeyTimestamp?: number;
      bindingTimestamp?: number;
    } = {},
  ): Promise<BundleBody> {
    const signedPreKeyPublic = x25519PublicKey();
    const unsigned = {
      ed25519PublicKey: this.ed25519PublicKey,
      identityKey: this.identityKey,
      registrationId: 1 + Math.floor(Math.random() * 16_000),
      signedPreKey: {
        keyId: 1 + Math.floor(Math.random() * 1000),
        publicKey: signedPreKeyPublic,
        signature: this.signEd25519(Buffer.from(signedPreKeyPublic, 'base64')),
        timestamp: options.signedPreKeyTimestamp ?? Date.now(),
      },
      oneTimePreKeys: oneTimePreKeys(options.prekeys ?? 10, options.firstPreKeyId ?? 1),
      walletBinding: await this.walletBinding(
        options.bindingTimestamp ?? this.binding?.timestamp ?? Date.now(),
      ),
    };
    return {
      ...unsigned,
      bundleSignature: this.signEd25519(Buffer.from(bundleStatement(this.address, unsigned))),
    };
  }

  signEd25519(data: Uint8Array): string {
    return b64(sign(null, data, this.ed25519.privateKey));
  }
}

/**
 * What a fetching client checks, with libraries independent of the service: the wallet
 * (ethers' EIP-191 recovery) bound the Ed25519 key, which (node:crypto) signed the bundle
 * statement and the signed prekey.
 */
export function clientVerifiesBundle(
  keyBundle: BundleBody & { address: string },
  serviceName = SERVICE_NAME,
): boolean {
  const { address, ed25519PublicKey, walletBinding, signedPreKey } = keyBundle;
  const ed25519 = createPublicKey({
    key: {
      kty: 'OKP',
      crv: 'Ed25519',
      x: Buffer.from(ed25519PublicKey, 'base64').toString('base64url'),
    },
    format: 'jwk',
  });
  const signer = verifyMessage(
    keyBindingMessage(address, ed25519PublicKey, walletBinding.timestamp, serviceName),
    walletBinding.signature,
  ).toLowerCase();
  return (
    signer === address &&
    verify(
      null,
      Buffer.from(bundleStatement(address, keyBundle, serviceName)),
      ed25519,
      Buffer.from(keyBundle.bundleSignature, 'base64'),
    ) &&
    verify(
      null,
      Buffer.from(signedPreKey.publicKey, 'base64'),
      ed25519,
      Buffer.from(signedPreKey.signature, 'base64'),
    )
  );
}

/** The key-bundle 404: the failure envelope plus the success envelope's `message` (keys.proto). */
export function expectNoBundle(reply: Reply): void {
  expect({ status: reply.status, body: reply.body }).toEqual({
    status: 404,
    body: {
      success: false,
      error: expect.any(String),
      code: 'NOT_FOUND',
      message: reply.body?.error,
    },
  });
}
