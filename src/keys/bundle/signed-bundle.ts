/**
 * The signed, long-lived part of a user's key bundle: what the key directory (DHT) holds, what
 * the store keeps as its durable copy, and what a fetch serves with one one-time prekey. Its
 * signatures (bundle-verification.ts) let anyone check it without trusting the service.
 *
 * As a DHT record it is JSON with the members in a fixed order. Records come from the network,
 * so decoding checks every member's type and refuses anything else.
 */

export interface SignedPreKeyData {
  readonly keyId: number;
  readonly publicKey: string;
  readonly signature: string;
  /** Epoch milliseconds. */
  readonly timestamp: number;
}

export interface WalletBindingData {
  /** EIP-191 signature, `0x` + 130 hex digits. */
  readonly signature: string;
  /** Epoch milliseconds: the key binding message's `Timestamp` line. */
  readonly timestamp: number;
}

export interface SignedBundle {
  /** Lowercase wallet address of the owner. */
  readonly address: string;
  readonly ed25519PublicKey: string;
  readonly identityKey: string;
  readonly registrationId: number;
  readonly signedPreKey: SignedPreKeyData;
  readonly walletBinding: WalletBindingData;
  readonly bundleSignature: string;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeSignedBundle(bundle: SignedBundle): Uint8Array {
  const {
    address,
    ed25519PublicKey,
    identityKey,
    registrationId,
    signedPreKey: spk,
    walletBinding,
    bundleSignature,
  } = bundle;
  return encoder.encode(
    JSON.stringify({
      address,
      ed25519PublicKey,
      identityKey,
      registrationId,
      signedPreKey: {
        keyId: spk.keyId,
        publicKey: spk.publicKey,
        signature: spk.signature,
        timestamp: spk.timestamp,
      },
      walletBinding: { signature: walletBinding.signature, timestamp: walletBinding.timestamp },
      bundleSignature,
    }),
  );
}

/** The bundle in `bytes`, or undefined when they are not one (whatever a peer sent). */
export function decodeSignedBundle(bytes: Uint8Array): SignedBundle | undefined {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    return undefined;
  }
  if (!isObject(value) || !isObject(value.signedPreKey) || !isObject(value.walletBinding))
    return undefined;
  const { signedPreKey: spk, walletBinding: binding } = value;
  const strings = [
    value.address,
    value.ed25519PublicKey,
    value.identityKey,
    value.bundleSignature,
    spk.publicKey,
    spk.signature,
    binding.signature,
  ];
  const numbers = [value.registrationId, spk.keyId, spk.timestamp, binding.timestamp];
  if (
    !strings.every((item) => typeof item === 'string') ||
    !numbers.every((item) => Number.isSafeInteger(item))
  )
    return undefined;
  // Rebuilt member by member: whatever else a record carries is dropped, never served.
  const bundle = value as unknown as SignedBundle;
  return {
    address: bundle.address,
    ed25519PublicKey: bundle.ed25519PublicKey,
    identityKey: bundle.identityKey,
    registrationId: bundle.registrationId,
    signedPreKey: {
      keyId: bundle.signedPreKey.keyId,
      publicKey: bundle.signedPreKey.publicKey,
      signature: bundle.signedPreKey.signature,
      timestamp: bundle.signedPreKey.timestamp,
    },
    walletBinding: {
      signature: bundle.walletBinding.signature,
      timestamp: bundle.walletBinding.timestamp,
    },
    bundleSignature: bundle.bundleSignature,
  };
}

/**
 * Which of two bundles of one owner is current, as a sortable string: the later wallet binding,
 * then the later signed prekey. Both timestamps are signed by the owner (the binding by the
 * wallet, the signed prekey's by the Ed25519 key through the bundle statement), so someone
 * holding only an old, replaced Ed25519 key cannot make an old bundle win.
 */
export function bundleVersion(
  bundle: Pick<SignedBundle, 'walletBinding' | 'signedPreKey'>,
): string {
  const pad = (n: number) => String(n).padStart(16, '0');
  return `${pad(bundle.walletBinding.timestamp)}.${pad(bundle.signedPreKey.timestamp)}`;
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
